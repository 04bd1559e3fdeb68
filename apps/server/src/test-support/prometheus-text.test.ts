import { describe, expect, it } from "vitest";
import { parsePrometheusText, sampleValue } from "./prometheus-text.js";

describe("parsePrometheusText (the tests' reader of /metrics)", () => {
  it("reads the format's own example, labels, escapes, NaN and infinities", () => {
    const families = parsePrometheusText(
      [
        "# HELP http_requests_total The total number of HTTP requests.",
        "# TYPE http_requests_total counter",
        'http_requests_total{method="post",code="200"} 1027 1395066363000',
        'http_requests_total{method="post",code="400"}    3 1395066363000',
        'msdos_file_access_time_seconds{path="C:\\\\DIR\\\\FILE.TXT",error="Cannot find file:\\n\\"FILE.TXT\\""} 1.458255915e9',
        "# TYPE lag gauge",
        "lag Nan",
        "lag_other -Inf",
        "# TYPE latency histogram",
        'latency_bucket{op="a",le="0.1"} 1',
        'latency_bucket{op="a",le="+Inf"} 2',
        'latency_sum{op="a"} 0.3',
        'latency_count{op="a"} 2',
        'latency_bucket{op="b",le="0.1"} 0',
        'latency_bucket{op="b",le="+Inf"} 5',
        'latency_sum{op="b"} 9',
        'latency_count{op="b"} 5',
      ].join("\n"),
    );
    expect(sampleValue(families, "http_requests_total", { code: "400" })).toBe(3);
    expect(families.get("msdos_file_access_time_seconds")?.samples[0]?.labels).toEqual({
      path: "C:\\DIR\\FILE.TXT",
      error: 'Cannot find file:\n"FILE.TXT"',
    });
    expect(sampleValue(families, "lag")).toBeNaN();
    expect(sampleValue(families, "lag_other")).toBe(-Infinity);
    expect(sampleValue(families, "latency", { op: "b" })).toBe(5);
  });

  it.each([
    ["a broken label", 'x{a="1} 2'],
    ["a bad number", "x 1..2"],
    ["a bucket without le", "# TYPE h histogram\nh_bucket 1\nh_count 1"],
    ["a histogram whose +Inf bucket is not its count", '# TYPE h histogram\nh_bucket{le="+Inf"} 2\nh_count 3'],
    ["split samples", "a 1\nb 2\na 3"],
    ["an unknown type", "# TYPE a counters\na 1"],
  ])("refuses %s", (_case, text) => {
    expect(() => parsePrometheusText(text)).toThrow(SyntaxError);
  });
});
