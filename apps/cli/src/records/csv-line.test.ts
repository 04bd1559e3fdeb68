import { describe, expect, it } from "vitest";
import { parseCsvLine } from "./csv-line.js";

describe("parseCsvLine (RFC 4180 quoting, one record per line)", () => {
  it.each([
    ["7,Fern,indoor", ["7", "Fern", "indoor"]],
    ["7,Fern,", ["7", "Fern", ""]],
    ["7,,", ["7", "", ""]],
    ['7,"Fern, the green","in""door"', ["7", "Fern, the green", 'in"door']],
    ['"7","",""', ["7", "", ""]],
    ['7,"""quoted"""', ["7", '"quoted"']],
    ["7, Fern ,x", ["7", " Fern ", "x"]],
    ["single", ["single"]],
    ["", [""]],
  ])("reads %j", (line, fields) => {
    expect(parseCsvLine(line)).toEqual({ ok: true, fields });
  });

  it.each([
    ['7,"Fern', "quoted field 2 is not closed on this line"],
    ['7,"Fern"x,indoor', "field 2 has text after its closing quote"],
    ['7,Fe"rn,indoor', "field 2 has a quote but does not start with one"],
    ['7,"a""', "quoted field 2 is not closed on this line"],
  ])("refuses %j", (line, reason) => {
    expect(parseCsvLine(line)).toEqual({ ok: false, reason });
  });
});
