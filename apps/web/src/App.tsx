import { PlantStoreError } from "@plantstore/client";
import { useQueryClient } from "@tanstack/react-query";
import { useMemo, useState, type FormEvent } from "react";
import { clientFor, describeFailure, forgetToken, savedToken, saveToken } from "./api.js";
import { Field } from "./Field.js";
import { LIVE_TEXT, LIVE_WORD, type LiveState } from "./live.js";
import { QUIET, type Notice, type Say } from "./notice.js";
import { Store } from "./Store.js";

export function App() {
  const [token, setToken] = useState<string | null>(savedToken);
  const [notice, setNotice] = useState<Notice>(QUIET);
  const [live, setLive] = useState<LiveState>("connecting");
  const queryClient = useQueryClient();
  const client = useMemo(() => (token === null ? undefined : clientFor(token)), [token]);

  const say = useMemo<Say>(
    () => ({
      clear: () => setNotice(QUIET),
      refuse: (error, field) => setNotice({ alert: describeFailure(error), status: "", field }),
      tell: (status) => setNotice({ alert: "", status, field: undefined }),
    }),
    [],
  );

  function disconnect() {
    forgetToken();
    queryClient.clear();
    setToken(null);
    // Nothing said before belongs to the next person at this screen.
    say.clear();
  }

  return (
    <>
      <header className="masthead">
        <h1>Plant Store</h1>
        {client === undefined ? null : (
          <div className="masthead-end">
            <p role="status" aria-label="Live updates" className="live" data-state={live} data-label={LIVE_WORD[live]}>
              {LIVE_TEXT[live]}
            </p>
            <button type="button" onClick={disconnect}>
              Disconnect
            </button>
          </div>
        )}
      </header>
      <main>
        {/* Always present (so that screen readers announce each change), in space kept for them. */}
        <div className="notices">
          <p role="alert" className="alert">
            {notice.alert}
          </p>
          <p role="status" aria-label="Outcome" className="outcome">
            {notice.status}
          </p>
        </div>
        {client === undefined ? (
          <ConnectForm
            notice={notice}
            say={say}
            onConnected={(connected) => {
              saveToken(connected);
              setToken(connected);
              say.tell("Connected.");
            }}
          />
        ) : (
          <Store
            client={client}
            notice={notice}
            say={say}
            onLive={setLive}
            onAuthFailure={(error) => {
              disconnect();
              say.refuse(error, "token");
            }}
          />
        )}
      </main>
    </>
  );
}

function ConnectForm(props: { notice: Notice; say: Say; onConnected: (token: string) => void }) {
  const { notice, say } = props;
  const [token, setToken] = useState("");
  const [checking, setChecking] = useState(false);

  async function connect(event: FormEvent) {
    event.preventDefault();
    say.clear();
    const candidate = token.trim();
    if (candidate === "") {
      return say.refuse(new Error("API token: paste a token first (see above for how to get one)."), "token");
    }
    setChecking(true);
    try {
      // One small read proves the token before the page is shown (401 unknown, 403 without the scope).
      await clientFor(candidate).listPlants({ limit: 1 });
      props.onConnected(candidate);
    } catch (error) {
      say.refuse(error, error instanceof PlantStoreError && error.isAuthError() ? "token" : undefined);
    } finally {
      setChecking(false);
    }
  }

  return (
    <section className="card connect" aria-labelledby="connect-title">
      <h2 id="connect-title">Connect to this store</h2>
      <p>
        Paste an API token. Whoever runs the server makes one with <code>npm run tokens -- create</code>; on a new
        store, the server prints a first-run token when it first starts.
      </p>
      <form onSubmit={(event) => void connect(event)} noValidate>
        <Field
          id="token"
          label="API token"
          notice={notice}
          type="password"
          autoComplete="off"
          spellCheck={false}
          value={token}
          onChange={(event) => setToken(event.target.value)}
        />
        <button type="submit" className="primary" disabled={checking}>
          Connect
        </button>
      </form>
      <p className="hint">The token is kept in this tab only, until you disconnect or close it.</p>
    </section>
  );
}
