/**
 * The writer thread: owns the connection that writes plants, so that a commit's fsync never
 * blocks the event loop that parses requests. Receives batches, answers each with its results.
 */
import { parentPort, workerData } from "node:worker_threads";
import { CreateBatchWriter, type CreateRow, type RowResult } from "./create-batch.js";
import { openConnection } from "./sqlite-connection.js";

export type WriterRequest = { batch: CreateRow[] } | { close: true };
export type WriterReply = { results: RowResult[] } | { closed: true };

const port = parentPort!;
const db = openConnection((workerData as { path: string }).path);
const writer = new CreateBatchWriter(db);

port.on("message", (message: WriterRequest) => {
  if ("close" in message) {
    db.close();
    port.postMessage({ closed: true } satisfies WriterReply);
    port.close();
    return;
  }
  port.postMessage({ results: writer.write(message.batch) } satisfies WriterReply);
});
