import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { undocumented, type ObservedResponse } from "./observed-responses.js";

const document = JSON.parse(
  readFileSync(new URL("../../../../packages/contract/openapi.json", import.meta.url), "utf8"),
) as { paths: Record<string, Record<string, { responses: Record<string, unknown> }>> };

const answer = (over: Partial<ObservedResponse>): ObservedResponse => ({
  method: "POST",
  path: "/plants",
  status: 200,
  contentType: "application/json; charset=utf-8",
  body: '{"name":"Fern"}',
  ...over,
});

describe("the check of observed answers against the OpenAPI document", () => {
  it("accepts documented answers, exact ids beyond 2^53 included, and ignores paths that are no operation", () => {
    expect(
      undocumented([
        answer({}),
        answer({ method: "GET", path: "/plants/9223372036854775807", body: '{"id":9223372036854775807,"name":"Max"}' }),
        answer({ method: "DELETE", path: "/plants/7", status: 204, contentType: null, body: "" }),
        answer({ status: 409, body: '{"error":40901,"message":"a plant with id 7 already exists"}' }),
        answer({ method: "PUT", status: 405, body: "{}" }),
      ]),
    ).toEqual([]);
  });

  it("reports a status the operation does not document", () => {
    const without409 = structuredClone(document);
    delete without409.paths["/plants"]!.post!.responses["409"];
    const problems = undocumented([answer({ status: 409, body: '{"error":40901,"message":"x"}' })], without409);
    expect(problems).toEqual(["POST /plants → 409: status not documented"]);
  });

  it("reports a body that does not validate against the documented schema, and a wrong content type", () => {
    expect(undocumented([answer({ body: '{"tag":"indoor"}' })])[0]).toMatch(/^POST \/plants → 200: .*name/);
    expect(undocumented([answer({ body: '{"error":"40002","message":"x"}', status: 400 })])[0]).toMatch(/integer/);
    expect(undocumented([answer({ contentType: "text/html" })])).toEqual([
      "POST /plants → 200: Content-Type text/html, documented application/json",
    ]);
    expect(undocumented([answer({ method: "DELETE", path: "/plants/7", status: 204, body: "{}" })])).toEqual([
      "DELETE /plants/{id} → 204: a body where the document has none",
    ]);
  });
});
