import type { PlantPage, PlantStoreClient, VersionedPlant } from "@plantstore/client";
import { PlantStoreError } from "@plantstore/client";
import { useInfiniteQuery, useMutation, useQueryClient, type InfiniteData } from "@tanstack/react-query";
import { useEffect, useMemo, useRef, useState, type FormEvent } from "react";
import {
  clientFor,
  describeFailure,
  forgetToken,
  newPlantFrom,
  PAGE_SIZE,
  plantUpdateFrom,
  savedToken,
  saveToken,
  type EditForm,
  type PlantForm,
  type StoredPlant,
} from "./api.js";

type Pages = InfiniteData<PlantPage, bigint | undefined>;

/** What the page says: a refusal (role="alert"), or news of a success (role="status"). */
interface Notice {
  alert: string;
  status: string;
}

export function App() {
  const [token, setToken] = useState<string | null>(savedToken);
  const [notice, setNotice] = useState<Notice>({ alert: "", status: "" });
  const queryClient = useQueryClient();
  const client = useMemo(() => (token === null ? undefined : clientFor(token)), [token]);

  const refuse = (error: unknown) => setNotice({ alert: describeFailure(error), status: "" });
  const tell = (status: string) => setNotice({ alert: "", status });

  function disconnect() {
    forgetToken();
    queryClient.clear();
    setToken(null);
  }

  return (
    <main>
      <h1>Plant Store</h1>
      {/* Above the table, where a refusal is seen at once; both always present, so that screen readers announce each change. */}
      <p role="alert" className="alert">
        {notice.alert}
      </p>
      <p role="status" className="status">
        {notice.status}
      </p>
      {client === undefined ? (
        <ConnectForm
          onConnected={(connected) => {
            saveToken(connected);
            setToken(connected);
            tell("Connected.");
          }}
          refuse={refuse}
        />
      ) : (
        <Store client={client} refuse={refuse} tell={tell} onDisconnect={disconnect} />
      )}
    </main>
  );
}

function ConnectForm(props: { onConnected: (token: string) => void; refuse: (error: unknown) => void }) {
  const [token, setToken] = useState("");
  const [checking, setChecking] = useState(false);

  async function connect(event: FormEvent) {
    event.preventDefault();
    setChecking(true);
    try {
      // One small read proves the token before the page is shown (401 unknown, 403 without the scope).
      await clientFor(token.trim()).listPlants({ limit: 1 });
      props.onConnected(token.trim());
    } catch (error) {
      props.refuse(error);
    } finally {
      setChecking(false);
    }
  }

  return (
    <form className="connect" onSubmit={(event) => void connect(event)}>
      <label htmlFor="token">API token</label>
      <input
        id="token"
        type="password"
        autoComplete="off"
        spellCheck={false}
        required
        value={token}
        onChange={(event) => setToken(event.target.value)}
      />
      <button type="submit" disabled={checking}>
        Connect
      </button>
    </form>
  );
}

/** Adds `plant` to the loaded pages at its place in id order (the table shows it at once). */
function withPlant(data: Pages, plant: StoredPlant): Pages {
  const pages = data.pages.map((page) => ({ ...page, plants: page.plants.filter((p) => p.id !== plant.id) }));
  let index = pages.findIndex((page) => page.plants.some((p) => p.id > plant.id));
  if (index === -1) index = pages.length - 1;
  const page = pages[index]!;
  const plants = [...page.plants, plant].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  pages[index] = { ...page, plants };
  return { ...data, pages };
}

function withoutPlant(data: Pages, id: bigint): Pages {
  return { ...data, pages: data.pages.map((page) => ({ ...page, plants: page.plants.filter((p) => p.id !== id) })) };
}

/** The plant being edited: as last read (its ETag is the edit's If-Match), and the form's fields. */
interface Editing {
  plant: StoredPlant;
  etag: string;
  form: EditForm;
}

const formOf = (plant: StoredPlant): EditForm => ({ name: plant.name, tag: plant.tag ?? "" });
const describePlant = (plant: StoredPlant) => `${plant.name} (${plant.id})`;

function Store(props: {
  client: PlantStoreClient;
  refuse: (error: unknown) => void;
  tell: (status: string) => void;
  onDisconnect: () => void;
}) {
  const { client, refuse, tell } = props;
  const queryClient = useQueryClient();
  const [tag, setTag] = useState("");
  const [tagInput, setTagInput] = useState("");
  const tableRef = useRef<HTMLTableElement>(null);
  const queryKey = ["plants", tag];

  const plants = useInfiniteQuery({
    queryKey,
    queryFn: ({ pageParam, signal }) =>
      client.listPlants({ limit: PAGE_SIZE, after: pageParam, ...(tag === "" ? {} : { tag }) }, { signal }),
    initialPageParam: undefined as bigint | undefined,
    getNextPageParam: (last) => last.next,
  });

  useEffect(() => {
    if (plants.error === null) return;
    refuse(plants.error);
    // A token that stopped working (revoked, or the server forgot it): ask for another.
    if (plants.error instanceof PlantStoreError && plants.error.isAuthError()) props.onDisconnect();
    // Once per failure: the effect depends on the error alone.
  }, [plants.error]);

  const rows = useMemo(() => {
    const byId = new Map<bigint, StoredPlant>();
    for (const page of plants.data?.pages ?? []) for (const plant of page.plants) byId.set(plant.id, plant);
    return [...byId.values()].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  }, [plants.data]);

  const [form, setForm] = useState<PlantForm>({ id: "", name: "", tag: "" });
  const add = useMutation({
    mutationFn: (plant: { id: bigint; name: string; tag?: string }) => client.createPlant(plant),
    onSuccess: (result, sent) => {
      const stored: StoredPlant = { id: sent.id, ...result.plant };
      if (tag === "" || stored.tag === tag) {
        queryClient.setQueryData<Pages>(queryKey, (data) => (data === undefined ? data : withPlant(data, stored)));
      }
      setForm({ id: "", name: "", tag: "" });
      tell(`${result.outcome === "replayed" ? "Already stored" : "Added"}: ${stored.name} (${stored.id}).`);
    },
    onError: refuse,
  });

  const remove = useMutation({
    mutationFn: (plant: StoredPlant) => client.deletePlant(plant.id),
    onSuccess: (_result, plant) => {
      queryClient.setQueryData<Pages>(queryKey, (data) => (data === undefined ? data : withoutPlant(data, plant.id)));
      tell(`Deleted ${plant.name} (${plant.id}).`);
      if (editing?.plant.id === plant.id) setEditing(null);
      // The button that had the focus is gone: the table keeps it, so the keyboard stays in place.
      tableRef.current?.focus();
    },
    onError: (error, plant) => {
      refuse(error);
      // Someone else deleted it first: the row goes, as the plant has.
      if (error instanceof PlantStoreError && error.isNotFound()) {
        queryClient.setQueryData<Pages>(queryKey, (data) => (data === undefined ? data : withoutPlant(data, plant.id)));
      }
    },
  });

  /** Puts `plant` in the table as it now is (or takes it out, when the filter no longer shows it). */
  function showInTable(plant: StoredPlant) {
    queryClient.setQueryData<Pages>(queryKey, (data) => {
      if (data === undefined || !data.pages.some((page) => page.plants.some((p) => p.id === plant.id))) return data;
      return tag === "" || plant.tag === tag ? withPlant(data, plant) : withoutPlant(data, plant.id);
    });
  }

  const [editing, setEditing] = useState<Editing | null>(null);
  const editNameRef = useRef<HTMLInputElement>(null);
  const editButtons = useRef(new Map<bigint, HTMLButtonElement>());
  // The form opens with the focus in its first field (and after a 412, back there with the current version).
  const editingId = editing?.plant.id;
  const editingEtag = editing?.etag;
  useEffect(() => {
    if (editingId !== undefined) editNameRef.current?.focus();
  }, [editingId, editingEtag]);

  function closeEdit(id: bigint) {
    setEditing(null);
    // Back to the row's Edit button, or the table when the row is gone.
    const button = editButtons.current.get(id);
    if (button?.isConnected) button.focus();
    else tableRef.current?.focus();
  }

  /** Reads the plant with its ETag (the version the edit will be checked against) and opens the form. */
  const startEdit = useMutation({
    mutationFn: (plant: StoredPlant) => client.readPlant(plant.id),
    onSuccess: (read) => {
      showInTable(read.plant);
      setEditing({ ...read, form: formOf(read.plant) });
    },
    onError: (error, plant) => {
      refuse(error);
      if (error instanceof PlantStoreError && error.isNotFound()) {
        queryClient.setQueryData<Pages>(queryKey, (data) => (data === undefined ? data : withoutPlant(data, plant.id)));
      }
    },
  });

  const save = useMutation({
    mutationFn: ({ edit, plant }: { edit: Editing; plant: { name: string; tag?: string } }) =>
      client.updatePlant(edit.plant.id, plant, { ifMatch: edit.etag }),
    onSuccess: (result) => {
      showInTable(result.plant);
      tell(`Saved ${describePlant(result.plant)}.`);
      closeEdit(result.plant.id);
    },
    onError: async (error, { edit }) => {
      if (!(error instanceof PlantStoreError && error.isPreconditionFailed())) return refuse(error);
      // Someone else changed (or deleted) it since it was read: show the plant as it is now, so the
      // person decides again from there; nothing of theirs was saved.
      const whose = describePlant(edit.plant);
      let current: VersionedPlant;
      try {
        current = await client.readPlant(edit.plant.id);
      } catch (readError) {
        if (!(readError instanceof PlantStoreError && readError.isNotFound())) return refuse(readError);
        queryClient.setQueryData<Pages>(queryKey, (data) =>
          data === undefined ? data : withoutPlant(data, edit.plant.id),
        );
        refuse(new Error(`Someone else deleted ${whose} while you were editing it; your edit was not saved.`));
        return closeEdit(edit.plant.id);
      }
      showInTable(current.plant);
      setEditing({ ...current, form: formOf(current.plant) });
      const { name, tag: currentTag } = current.plant;
      refuse(
        new Error(
          `Someone else changed ${whose} while you were editing it; your edit was not saved. ` +
            `The current version is shown: ${name}, ${currentTag === undefined ? "no tag" : `tag ${currentTag}`}.`,
        ),
      );
    },
  });

  function submitEdit(event: FormEvent) {
    event.preventDefault();
    if (editing === null) return;
    const checked = plantUpdateFrom(editing.form);
    if (!checked.ok) return refuse(new Error(checked.reason));
    save.mutate({ edit: editing, plant: checked.plant });
  }

  function submitAdd(event: FormEvent) {
    event.preventDefault();
    const checked = newPlantFrom(form);
    if (!checked.ok) return refuse(new Error(checked.reason));
    add.mutate(checked.plant);
  }

  function applyFilter(event: FormEvent) {
    event.preventDefault();
    setTag(tagInput.trim());
  }

  return (
    <>
      <div className="toolbar">
        <form role="search" onSubmit={applyFilter}>
          <label htmlFor="filter">Filter by tag</label>
          <input id="filter" type="search" value={tagInput} onChange={(event) => setTagInput(event.target.value)} />
        </form>
        <button type="button" onClick={props.onDisconnect}>
          Disconnect
        </button>
      </div>

      <form className="add" onSubmit={submitAdd} noValidate>
        <fieldset disabled={add.isPending}>
          <legend>Add a plant</legend>
          <label htmlFor="add-id">Id</label>
          <input
            id="add-id"
            inputMode="numeric"
            autoComplete="off"
            value={form.id}
            onChange={(event) => setForm({ ...form, id: event.target.value })}
          />
          <label htmlFor="add-name">Name</label>
          <input
            id="add-name"
            autoComplete="off"
            value={form.name}
            onChange={(event) => setForm({ ...form, name: event.target.value })}
          />
          <label htmlFor="add-tag">Tag</label>
          <input
            id="add-tag"
            autoComplete="off"
            value={form.tag}
            onChange={(event) => setForm({ ...form, tag: event.target.value })}
          />
          <button type="submit">Add plant</button>
        </fieldset>
      </form>

      {editing === null ? null : (
        <form className="edit" onSubmit={submitEdit} noValidate>
          <fieldset disabled={save.isPending}>
            <legend>Edit {describePlant(editing.plant)}</legend>
            <label htmlFor="edit-name">New name</label>
            <input
              id="edit-name"
              ref={editNameRef}
              autoComplete="off"
              value={editing.form.name}
              onChange={(event) => setEditing({ ...editing, form: { ...editing.form, name: event.target.value } })}
            />
            <label htmlFor="edit-tag">New tag</label>
            <input
              id="edit-tag"
              autoComplete="off"
              value={editing.form.tag}
              onChange={(event) => setEditing({ ...editing, form: { ...editing.form, tag: event.target.value } })}
            />
            <button type="submit">Save</button>
            <button type="button" onClick={() => closeEdit(editing.plant.id)}>
              Cancel
            </button>
          </fieldset>
        </form>
      )}

      <table ref={tableRef} tabIndex={-1} aria-busy={plants.isFetching}>
        <caption>Plants</caption>
        <thead>
          <tr>
            <th scope="col">Id</th>
            <th scope="col">Name</th>
            <th scope="col">Tag</th>
            <th scope="col">
              <span className="visually-hidden">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {rows.map((plant) => (
            <tr key={String(plant.id)}>
              <td className="id">{String(plant.id)}</td>
              <td>{plant.name}</td>
              <td>{plant.tag ?? ""}</td>
              <td>
                <button
                  type="button"
                  ref={(button) => {
                    if (button === null) editButtons.current.delete(plant.id);
                    else editButtons.current.set(plant.id, button);
                  }}
                  aria-label={`Edit ${plant.name} (${plant.id})`}
                  disabled={startEdit.isPending && startEdit.variables?.id === plant.id}
                  onClick={() => startEdit.mutate(plant)}
                >
                  Edit
                </button>{" "}
                <button
                  type="button"
                  aria-label={`Delete ${plant.name} (${plant.id})`}
                  disabled={remove.isPending && remove.variables?.id === plant.id}
                  onClick={() => remove.mutate(plant)}
                >
                  Delete
                </button>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {tag === "" ? null : <p>Showing plants tagged “{tag}”.</p>}
      {plants.isPending ? (
        <p>Loading…</p>
      ) : rows.length === 0 ? (
        <p>No plants{tag === "" ? "" : " with this tag"}.</p>
      ) : null}
      {plants.hasNextPage ? (
        <button type="button" onClick={() => void plants.fetchNextPage()} disabled={plants.isFetchingNextPage}>
          Load more
        </button>
      ) : null}
    </>
  );
}
