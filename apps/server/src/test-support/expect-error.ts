import { expect } from "vitest";

/** The answer is a JSON Error with this status and code (and, when given, a message matching `messagePart`). */
export async function expectError(
  response: Response,
  status: number,
  code: number,
  messagePart?: RegExp,
): Promise<{ error: number; message: string }> {
  expect(response.status).toBe(status);
  expect(response.headers.get("content-type")).toBe("application/json; charset=utf-8");
  const body = (await response.json()) as { error: number; message: string };
  expect(body).toEqual({ error: code, message: expect.any(String) });
  if (messagePart) expect(body.message).toMatch(messagePart);
  return body;
}
