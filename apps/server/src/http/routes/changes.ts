import type { IncomingMessage } from "node:http";
import { ChangeStreamHeaders, ChangeStreamQuery, LAST_EVENT_ID_HEADER, plantStoreContract } from "@plantstore/contract";
import type { ChangeFeed } from "../../changes/change-feed.js";
import type { TokenVerifier } from "../../tokens/token-verifier.js";
import { sendError } from "../answer.js";
import type { Operation } from "../routing.js";
import { parameterRefusal } from "../validation.js";

const STREAM_SCOPE = plantStoreContract.streamPlantChanges.metadata.scope;

/**
 * Steps 5–7 for `GET /plants/changes` (streamPlantChanges). ts-rest cannot answer a stream, so this
 * operation's handler is this one rather than Express's: it validates the query and Last-Event-ID
 * with the contract's own schemas (the same 400 as every other operation), then hands the answer to
 * the change feed, which writes the events. The gate already checked the token and its scope; the
 * feed asks again at every poll, so a revoked token's stream ends.
 */
export function changeStreamHandler(feed: ChangeFeed, verifier: TokenVerifier): Operation["handle"] {
  return (req, res, fail) => {
    const query = ChangeStreamQuery.safeParse((req as IncomingMessage & { query: unknown }).query);
    // An empty Last-Event-ID is no cursor (EventSource sends none before its first event).
    const lastEventId = req.headers[LAST_EVENT_ID_HEADER] || undefined;
    const headers = ChangeStreamHeaders.safeParse({ [LAST_EVENT_ID_HEADER]: lastEventId });
    if (!query.success || !headers.success) {
      return sendError(res, parameterRefusal(query.error ?? null, headers.error ?? null));
    }
    const after = headers.data[LAST_EVENT_ID_HEADER] ?? query.data.after;
    const { key } = req.credential!;
    const admitted = () => verifier.current(key)?.scopes.has(STREAM_SCOPE) ?? false;
    feed.open(res, after, admitted).catch(fail);
  };
}
