import { Agent, request } from "node:http";

/** The body the wrk script sends for pool id -n; the pool is pre-created with exactly these bytes. */
export function poolBody(n: number): string {
  return `{"id":${-n},"name":"Monstera deliciosa","tag":"indoor"}`;
}

// node:http with keep-alive: far lighter than fetch for the thousand pre-creates on a busy machine.
const agent = new Agent({ keepAlive: true, maxSockets: 16 });

/**
 * A POST that is tried again (up to 3 times) when it gets no answer at all: on a machine shared
 * with other work a single request can stall, and that says nothing about the target's answers.
 * A wrong answer is never retried.
 */
export async function postPlant(url: string, token: string, body: string): Promise<{ status: number; text: string }> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await postPlantOnce(url, token, body);
    } catch (error) {
      if (attempt >= 3) throw error;
    }
  }
}

function postPlantOnce(url: string, token: string, body: string): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = request(
      `${url}/plants`,
      {
        method: "POST",
        agent,
        timeout: 10_000,
        headers: {
          "content-type": "application/json",
          "content-length": Buffer.byteLength(body),
          authorization: `Bearer ${token}`,
        },
      },
      (res) => {
        let text = "";
        res.setEncoding("utf8").on("data", (chunk: string) => (text += chunk));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, text }));
        res.on("error", reject);
      },
    );
    req.on("timeout", () => req.destroy(new Error(`POST ${url}/plants got no answer within 10 s`)));
    req.on("error", reject);
    req.end(body);
  });
}

/**
 * Create pool ids -1 … -size (the replay and conflict scenarios hit them). Every answer must be 200:
 * the first request doubles as the check that the target does a create at all.
 */
export async function precreatePool(url: string, token: string, size: number, concurrency = 8): Promise<void> {
  let next = 1;
  async function worker(): Promise<void> {
    while (next <= size) {
      const n = next++;
      const { status, text } = await postPlant(url, token, poolBody(n));
      if (status !== 200) throw new Error(`a create of pool id ${-n} got ${status}: ${text.slice(0, 300)}`);
    }
  }
  await Promise.all(Array.from({ length: concurrency }, worker));
}

/** A target that checks tokens must refuse a wrong one with 401. */
export async function checkRefusesWrongToken(url: string, token: string): Promise<void> {
  const { status, text } = await postPlant(url, `wrong-${token}`, poolBody(1));
  if (status !== 401) throw new Error(`a wrong bearer token got ${status} instead of 401: ${text.slice(0, 300)}`);
}
