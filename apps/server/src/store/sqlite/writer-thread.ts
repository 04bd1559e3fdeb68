/**
 * The writer thread: owns the connection that writes plants, so that a commit's fsync never
 * blocks the event loop that parses requests. Receives batches, answers each with its results.
 */
import { parentPort, workerData } from "node:worker_threads";
import { BatchTransaction, decodeOps, encodeOutcome } from "./batch-transaction.js";
import { openConnection } from "./connection.js";

/** `batch` and `results` are encoded by batch-transaction.ts (one string each way). */
export type WriterRequest = { batch: string } | { close: true };
export type WriterReply = { outcome: string } | { closed: true };

const port = parentPort!;
const db = openConnection((workerData as { path: string }).path);
const transaction = new BatchTransaction(db);

port.on("message", (message: WriterRequest) => {
  if ("close" in message) {
    db.close();
    port.postMessage({ closed: true } satisfies WriterReply);
    port.close();
    return;
  }
  port.postMessage({ outcome: encodeOutcome(transaction.run(decodeOps(message.batch))) } satisfies WriterReply);
});
