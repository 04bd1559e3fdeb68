/**
 * vitest setup file: every answer a test's `fetch` gets from an operation path of the API is
 * recorded (method, path, status, content type, body), for `observed-responses.ts` to check against
 * the OpenAPI document after the suite. The body is read from a clone, so the test reads its own.
 */
import { appendFileSync } from "node:fs";
import { threadId } from "node:worker_threads";
import { RECORDS_DIRECTORY, type ObservedResponse } from "./observed-responses.js";

const API_PATH = /^\/plants(?:\/[^/]*)?$/;
const file = `${RECORDS_DIRECTORY}${process.pid}-${threadId}.jsonl`;
const realFetch = globalThis.fetch;

globalThis.fetch = async function recordingFetch(input: string | URL | Request, init?: RequestInit) {
  const response = await realFetch(input, init);
  // Not `new Request(input, init)`: a streamed request body is already consumed by now.
  const url = input instanceof Request ? input.url : String(input);
  const method = (init?.method ?? (input instanceof Request ? input.method : "GET")).toUpperCase();
  const path = new URL(url).pathname;
  if (API_PATH.test(path)) {
    const record: ObservedResponse = {
      method,
      path,
      status: response.status,
      contentType: response.headers.get("content-type"),
      body: await response.clone().text(),
    };
    appendFileSync(file, `${JSON.stringify(record)}\n`);
  }
  return response;
};
