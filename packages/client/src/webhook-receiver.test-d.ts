// Type tests: checked by vitest's typecheck mode (tsc), never executed.
import type { Equal, Expect } from "@plantstore/vitest-config/type-tests";
import { describe, test } from "vitest";
import { verifyWebhook, type ReceivedWebhookEvent } from "./webhooks.js";

declare const body: string;
declare const headers: Record<string, string | undefined>;

describe("verifyWebhook", () => {
  test("returns an event discriminated on its type, with an exact bigint id", () => {
    const event = verifyWebhook(body, headers, "whsec_…");
    type _returns = Expect<Equal<typeof event, ReceivedWebhookEvent>>;
    type _types = Expect<Equal<ReceivedWebhookEvent["type"], "plant.created" | "plant.updated" | "plant.deleted">>;
    type _id = Expect<Equal<ReceivedWebhookEvent["data"]["id"], bigint>>;
    if (event.type === "plant.deleted") {
      type _narrowed = Expect<Equal<typeof event.type, "plant.deleted">>;
    }
    // @ts-expect-error the tag is optional: a string or absent, never assumed
    const tag: string = event.data.tag;
    void tag;
  });

  test("takes the body as text or bytes, never as parsed JSON", () => {
    verifyWebhook(new Uint8Array(), headers, "whsec_…");
    // @ts-expect-error the signature covers the raw bytes: a parsed object cannot be verified
    verifyWebhook({ type: "plant.created" }, headers, "whsec_…");
  });
});
