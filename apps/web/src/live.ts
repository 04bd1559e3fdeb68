import { PlantStoreError, type PlantChange, type PlantStoreClient, type WatchState } from "@plantstore/client";
import { useEffect, useRef, useState } from "react";

/** Where the page's watch of the change stream is; `ended` when the server refused it for good. */
export type LiveState = WatchState | "ended";

/**
 * Follows every committed change (the client's `watchPlants`, which reconnects by itself from its
 * last cursor) while the page is connected, and hands each to `onChange`, the latest one given. A
 * refusal reconnecting cannot help (a revoked token) goes to `onRefused`.
 */
export function useLiveChanges(
  client: PlantStoreClient,
  onChange: (change: PlantChange) => void,
  onRefused: (error: PlantStoreError) => void,
): LiveState {
  const [state, setState] = useState<LiveState>("connecting");
  // The loop outlives renders: it calls what the latest render gave.
  const handlers = useRef({ onChange, onRefused });
  handlers.current = { onChange, onRefused };
  useEffect(() => {
    const stop = new AbortController();
    void (async () => {
      try {
        for await (const change of client.watchPlants({ signal: stop.signal, onState: setState })) {
          handlers.current.onChange(change);
        }
      } catch (error) {
        if (stop.signal.aborted) return;
        setState("ended");
        if (error instanceof PlantStoreError) handlers.current.onRefused(error);
      }
    })();
    return () => stop.abort();
  }, [client]);
  return state;
}

/** What the page says of its watch (an accessible status). */
export const LIVE_TEXT: Record<LiveState, string> = {
  connecting: "Connecting to live changes…",
  live: "Live: changes appear as they happen",
  reconnecting: "Reconnecting to live changes…",
  ended: "Not live: reload the page to see changes",
};

/** The same, in a word (a phone's header shows this; screen readers read the sentence). */
export const LIVE_WORD: Record<LiveState, string> = {
  connecting: "Connecting…",
  live: "Live",
  reconnecting: "Reconnecting…",
  ended: "Not live",
};
