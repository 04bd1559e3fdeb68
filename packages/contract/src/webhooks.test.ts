import { describe, expect, it } from "vitest";
import { parseExactJson, stringifyExactJson } from "./exact-json.js";
import type { StoredPlant } from "./plant.js";
import { WEBHOOK_EVENT_TYPES, WebhookEvent, eventWithSequence, webhookEventHead } from "./webhooks.js";

const VERSION = "q1W3dd3b6mcOx2hV0kJ9Zw";
const SEQUENCE = 9007199254740993n;
const webhookEventBody = (type: (typeof WEBHOOK_EVENT_TYPES)[number], plant: StoredPlant, timestamp: string) =>
  eventWithSequence(webhookEventHead(type, plant, timestamp, VERSION), SEQUENCE);
const eventOf = (type: string, timestamp: string, plant: StoredPlant) => ({
  type,
  timestamp,
  version: VERSION,
  data: dataOf(plant),
  sequence: SEQUENCE,
});
/** What stringifyExactJson writes of an event: the sequence as decimal text. */
const writtenOf = (type: string, timestamp: string, plant: StoredPlant) => ({
  ...eventOf(type, timestamp, plant),
  sequence: SEQUENCE.toString(),
});

const TIMESTAMP = "2026-11-23T21:46:03.123Z";

/** Plants the contract accepts, and values it refuses but JSON must still quote the same way. */
const validPlants: StoredPlant[] = [
  { id: 7n, name: "Monstera deliciosa", tag: "indoor" },
  { id: 9007199254740993n, name: "Fern" },
  { id: 9223372036854775807n, name: 'Φτέρη 🌿 "the" \\ one', tag: "ünder glass" },
];
const oddPlants: StoredPlant[] = [
  { id: -9223372036854775808n, name: 'a "quoted" \\ name\nwith a line', tag: "tab\there" },
  { id: 0n, name: "\u2028 \u0001 \ud800", tag: "" },
];
const cases = (plants: StoredPlant[]) =>
  WEBHOOK_EVENT_TYPES.flatMap((type) => plants.map((plant) => [type, plant] as const));

const dataOf = (plant: StoredPlant) =>
  plant.tag === undefined ? { id: plant.id, name: plant.name } : { id: plant.id, name: plant.name, tag: plant.tag };

describe("webhookEventBody", () => {
  it.each(cases([...validPlants, ...oddPlants]))(
    "%s of %o: the bytes stringifyExactJson writes for { type, timestamp, version, data, sequence }",
    (type, plant) => {
      expect(webhookEventBody(type, plant, TIMESTAMP)).toBe(stringifyExactJson(writtenOf(type, TIMESTAMP, plant)));
    },
  );

  it("keeps no part of one body in the next when the type or the timestamp changes", () => {
    const plant = validPlants[0]!;
    const calls = [
      ["plant.created", TIMESTAMP],
      ["plant.created", "2027-01-02T03:04:05.678Z"],
      ["plant.deleted", "2027-01-02T03:04:05.678Z"],
      ["plant.created", TIMESTAMP],
      ["plant.deleted", TIMESTAMP],
    ] as const;
    for (const [type, timestamp] of calls) {
      expect(webhookEventBody(type, plant, timestamp)).toBe(stringifyExactJson(writtenOf(type, timestamp, plant)));
    }
  });

  it.each(cases(validPlants))("%s of %o: reads back as the event, ids exact", (type, plant) => {
    const body = webhookEventBody(type, plant, TIMESTAMP);
    expect(WebhookEvent.parse(parseExactJson(body))).toEqual(eventOf(type, TIMESTAMP, plant));
  });
});
