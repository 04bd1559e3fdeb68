/** The body the wrk script sends for pool id -n; the pool is pre-created with exactly these bytes. */
export function poolBody(n: number): string {
  return `{"id":${-n},"name":"Monstera deliciosa","tag":"indoor"}`;
}

export async function postPlant(url: string, token: string, body: string): Promise<{ status: number; text: string }> {
  const response = await fetch(`${url}/plants`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${token}` },
    body,
    signal: AbortSignal.timeout(10_000),
  });
  return { status: response.status, text: await response.text() };
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
