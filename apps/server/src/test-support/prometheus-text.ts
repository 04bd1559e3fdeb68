/**
 * A strict reader of the Prometheus text exposition format (version 0.0.4,
 * prometheus.io/docs/instrumenting/exposition_formats): what the tests read /metrics with. It throws
 * on any line the format does not allow, rather than guessing. (The JS parsers on npm were tried
 * and left: one merges labeled histogram series, others refuse NaN and -Inf, which the format's
 * Go-syntax floats allow and prom-client writes.)
 */

export interface Sample {
  /** The sample's own name (`x_bucket`, `x_sum`, … for histograms). */
  name: string;
  labels: Record<string, string>;
  value: number;
}

export interface Family {
  name: string;
  type: "counter" | "gauge" | "histogram" | "summary" | "untyped";
  help: string;
  samples: Sample[];
}

const NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*$/;
const TYPES = new Set(["counter", "gauge", "histogram", "summary", "untyped"]);
const SUFFIXES: Record<Family["type"], string[]> = {
  counter: [""],
  gauge: [""],
  untyped: [""],
  histogram: ["_bucket", "_sum", "_count"],
  summary: ["", "_sum", "_count"],
};

/** A float as Go's ParseFloat reads it: decimal or exponent notation, NaN and ±Inf in any case. */
function float(text: string, line: string): number {
  if (/^[+-]?inf$/i.test(text)) return text.startsWith("-") ? -Infinity : Infinity;
  if (/^nan$/i.test(text)) return Number.NaN;
  if (!/^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(text)) throw new SyntaxError(`not a number in: ${line}`);
  return Number(text);
}

/** `{a="x",b="y\"z"}` from `text[start]` ("{"); returns the labels and the index after "}". */
function readLabels(text: string, start: number, line: string): [Record<string, string>, number] {
  const labels: Record<string, string> = {};
  let i = start + 1;
  for (;;) {
    while (text[i] === " ") i++;
    if (text[i] === "}") return [labels, i + 1];
    const eq = text.indexOf("=", i);
    const name = text.slice(i, eq).trim();
    if (eq === -1 || !LABEL_NAME.test(name) || text[eq + 1] !== '"') throw new SyntaxError(`bad label in: ${line}`);
    let value = "";
    for (i = eq + 2; ; i++) {
      const c = text[i];
      if (c === undefined) throw new SyntaxError(`unterminated label value in: ${line}`);
      if (c === '"') break;
      if (c === "\\") {
        const escaped = text[++i];
        if (escaped === "n") value += "\n";
        else if (escaped === "\\" || escaped === '"') value += escaped;
        else throw new SyntaxError(`bad escape in: ${line}`);
      } else value += c;
    }
    if (name in labels) throw new SyntaxError(`label ${name} twice in: ${line}`);
    labels[name] = value;
    i++;
    while (text[i] === " ") i++;
    if (text[i] === ",") i++;
    else if (text[i] !== "}") throw new SyntaxError(`expected , or } in: ${line}`);
  }
}

export function parsePrometheusText(text: string): Map<string, Family> {
  const families = new Map<string, Family>();
  let current: Family | undefined;
  for (const line of text.split("\n")) {
    if (line.trim() === "") continue;
    if (line.startsWith("#")) {
      const match = /^# (HELP|TYPE) (\S+) ?(.*)$/.exec(line);
      if (match === null) continue; // a plain comment
      const [, keyword, name, rest = ""] = match;
      if (!NAME.test(name!)) throw new SyntaxError(`bad metric name in: ${line}`);
      let family = families.get(name!);
      if (family === undefined) {
        family = { name: name!, type: "untyped", help: "", samples: [] };
        families.set(name!, family);
      } else if (family.samples.length > 0) {
        throw new SyntaxError(`${keyword} after samples of ${name}: ${line}`);
      }
      if (keyword === "TYPE") {
        if (!TYPES.has(rest)) throw new SyntaxError(`unknown type in: ${line}`);
        family.type = rest as Family["type"];
      } else {
        family.help = rest.replace(/\\n/g, "\n").replace(/\\\\/g, "\\");
      }
      current = family;
      continue;
    }
    const nameEnd = line.search(/[{ ]/);
    const name = nameEnd === -1 ? line : line.slice(0, nameEnd);
    if (!NAME.test(name)) throw new SyntaxError(`bad sample name in: ${line}`);
    let [labels, i] = line[nameEnd] === "{" ? readLabels(line, nameEnd, line) : [{}, nameEnd];
    const fields = line.slice(i).trim().split(/ +/);
    if (fields.length < 1 || fields.length > 2 || fields[0] === "") throw new SyntaxError(`bad sample: ${line}`);
    if (fields[1] !== undefined && !/^-?\d+$/.test(fields[1])) throw new SyntaxError(`bad timestamp in: ${line}`);
    const family =
      current !== undefined && SUFFIXES[current.type].some((suffix) => `${current!.name}${suffix}` === name)
        ? current
        : undefined;
    if (family === undefined) {
      if (families.has(name)) throw new SyntaxError(`samples of ${name} are not together: ${line}`);
      current = { name, type: "untyped", help: "", samples: [] };
      families.set(name, current);
    }
    if (current!.type === "histogram" && name.endsWith("_bucket") && !("le" in labels)) {
      throw new SyntaxError(`histogram bucket without le: ${line}`);
    }
    current!.samples.push({ name, labels, value: float(fields[0]!, line) });
    i = 0;
    labels = {};
  }
  for (const family of families.values()) if (family.type === "histogram") checkHistogram(family);
  return families;
}

/** Every series of a histogram: buckets that never decrease, ending in +Inf equal to its count. */
function checkHistogram(family: Family): void {
  const series = new Map<string, Sample[]>();
  for (const sample of family.samples) {
    const { le: _le, ...rest } = sample.labels;
    const key = JSON.stringify(Object.entries(rest).sort());
    series.set(key, [...(series.get(key) ?? []), sample]);
  }
  for (const samples of series.values()) {
    const buckets = samples.filter((sample) => sample.name.endsWith("_bucket"));
    const count = samples.find((sample) => sample.name.endsWith("_count"));
    for (let k = 1; k < buckets.length; k++) {
      if (buckets[k]!.value < buckets[k - 1]!.value) throw new SyntaxError(`${family.name}: buckets decrease`);
    }
    const last = buckets[buckets.length - 1];
    if (last?.labels.le !== "+Inf" || count === undefined || last.value !== count.value) {
      throw new SyntaxError(`${family.name}: a series lacks its +Inf bucket or its count, or they differ`);
    }
  }
}

/** The value of a counter or gauge sample, or a histogram's count, for the series with these labels. */
export function sampleValue(families: Map<string, Family>, name: string, labels: Record<string, string> = {}): number {
  const family = families.get(name);
  const wanted = family?.type === "histogram" ? `${name}_count` : name;
  const sample = family?.samples.find(
    (candidate) =>
      candidate.name === wanted && Object.entries(labels).every(([key, value]) => candidate.labels[key] === value),
  );
  return sample?.value ?? 0;
}
