// express-floor: Express 4 answering a fixed JSON body without reading or parsing the request.
// No work at all beyond the framework's: the floor any Express-based implementation stands on.
import express from "express";
import { announceListening, readBaselineEnv } from "./baseline-env.js";

const { port } = readBaselineEnv();
const FIXED_BODY = JSON.stringify({ name: "Monstera deliciosa", tag: "indoor" });

const app = express();
app.post("/plants", (_req, res) => {
  res.type("application/json").send(FIXED_BODY);
});

app.listen(port, "127.0.0.1", () => announceListening("express-floor", port));
