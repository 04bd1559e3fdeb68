// bare: node:http, hand validation, an in-memory Map. The platform's ceiling for this HTTP work.
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import { announceListening, readBaselineEnv } from "./baseline-env.js";

const { port, tokens } = readBaselineEnv();
const BODY_LIMIT = 16 * 1024;
const plants = new Map<number, { name: string; tag: string | undefined }>();
const authorized = new Set([...tokens].map((token) => `Bearer ${token}`));

function send(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(text) });
  res.end(text);
}

function isText(value: unknown, max: number): value is string {
  return typeof value === "string" && value.length >= 1 && value.length <= max;
}

/** The NewPlant rules a hand-written server would check: integer id, name 1–256, optional tag 1–64, no other keys. */
function validate(body: unknown): { id: number; name: string; tag: string | undefined } | string {
  if (typeof body !== "object" || body === null || Array.isArray(body)) return "body must be an object";
  const { id, name, tag, ...rest } = body as Record<string, unknown>;
  if (Object.keys(rest).length > 0) return `unknown field ${Object.keys(rest)[0]}`;
  if (typeof id !== "number" || !Number.isSafeInteger(id)) return "id: must be an integer";
  if (!isText(name, 256)) return "name: must be a string of 1-256 characters";
  if (tag !== undefined && !isText(tag, 64)) return "tag: must be a string of 1-64 characters";
  return { id, name, tag };
}

function handle(req: IncomingMessage, res: ServerResponse, text: string): void {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return send(res, 400, { error: 40001, message: "body is not valid JSON" });
  }
  const plant = validate(body);
  if (typeof plant === "string") return send(res, 400, { error: 40002, message: plant });
  const existing = plants.get(plant.id);
  if (existing === undefined) plants.set(plant.id, { name: plant.name, tag: plant.tag });
  else if (existing.name !== plant.name || existing.tag !== plant.tag) {
    return send(res, 409, { error: 40901, message: `a different plant with id ${plant.id} exists` });
  }
  send(res, 200, { name: plant.name, tag: plant.tag });
}

const server = createServer((req, res) => {
  if (req.method !== "POST" || req.url !== "/plants") return send(res, 404, { error: 40401, message: "not found" });
  if (!authorized.has(req.headers.authorization ?? "")) {
    // Refused before reading the body; node discards the unread body to keep the connection.
    return send(res, 401, { error: 40102, message: "invalid bearer token" });
  }
  const chunks: Buffer[] = [];
  let size = 0;
  req.on("data", (chunk: Buffer) => {
    size += chunk.length;
    if (size <= BODY_LIMIT) chunks.push(chunk);
  });
  req.on("end", () => {
    if (size > BODY_LIMIT) return send(res, 413, { error: 41301, message: "body too large" });
    handle(req, res, Buffer.concat(chunks).toString("utf8"));
  });
});

server.listen(port, "127.0.0.1", () => announceListening("bare", port));
