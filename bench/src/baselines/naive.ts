// naive: what a typical implementation of this contract looks like. Express 4, express.json(),
// ts-rest with the contract's zod schemas, better-sqlite3 with one transaction and one fsync per request.
import { ErrorCode, plantStoreContract } from "@plantstore/contract";
import { initServer, createExpressEndpoints } from "@ts-rest/express";
import express, { type NextFunction, type Request, type Response } from "express";
import { announceListening, readBaselineEnv } from "./baseline-env.js";
import { openDurablePlants } from "./durable-plants.js";

const { port, dbPath, tokens } = readBaselineEnv();
const plants = openDurablePlants(dbPath);

const app = express();
// As most Express apps begin: the body parser first, for every route.
app.use(express.json());
app.use((req: Request, res: Response, next: NextFunction) => {
  const header = req.headers.authorization ?? "";
  if (!header.startsWith("Bearer ") || !tokens.has(header.slice("Bearer ".length))) {
    res.status(401).json({ error: ErrorCode.INVALID_CREDENTIAL, message: "invalid bearer token" });
    return;
  }
  next();
});

// The bench loads POST /plants only: the baseline serves that one operation of the contract.
const createOnly = { createPlant: plantStoreContract.createPlant };

const s = initServer();
const router = s.router(createOnly, {
  createPlant: async ({ body }) => {
    const plant = { name: body.name, tag: body.tag };
    const outcome = plants.create({ id: body.id, ...plant });
    if (outcome === "conflict") {
      return {
        status: 409,
        body: { error: ErrorCode.ID_CONFLICT, message: `a different plant with id ${body.id} exists` },
      };
    }
    return { status: 200, body: plant };
  },
});

createExpressEndpoints(createOnly, router, app, {
  requestValidationErrorHandler: (err, _req, res) => {
    const issue = err.body?.issues[0];
    const message = issue ? `${issue.path.join(".")}: ${issue.message}` : "invalid request";
    res.status(400).json({ error: ErrorCode.VALIDATION_FAILED, message });
  },
});

app.listen(port, "127.0.0.1", () => announceListening("naive", port));
