import type { ListPlantsOptions, PlantChange, PlantCount, PlantStoreClient, VersionedPlant } from "@plantstore/client";
import { PlantStoreError } from "@plantstore/client";
import { keepPreviousData, useInfiniteQuery, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useEffect, useMemo, useRef, useState, type FormEvent, type KeyboardEvent } from "react";
import { newPlantFrom, PAGE_SIZE, plantUpdateFrom, type EditForm, type PlantForm, type StoredPlant } from "./api.js";
import { Field } from "./Field.js";
import { useLiveChanges, type LiveState } from "./live.js";
import type { Notice, Say } from "./notice.js";
import { rowsOf, withoutPlant, withPlant, type Order, type Pages, type View } from "./pages.js";

/** How long the search fields wait for typing to pause before asking the server. */
export const SEARCH_DEBOUNCE_MS = 300;

/** The filters of the view, as GET /plants takes them (only those in use). */
const filtersOf = (view: View): ListPlantsOptions => ({
  ...(view.name === "" ? {} : { name: view.name }),
  ...(view.tag === "" ? {} : { tag: view.tag }),
});

/** The query of one page of the view. */
function listQuery(view: View, after: bigint | undefined): ListPlantsOptions {
  return { limit: PAGE_SIZE, after, ...filtersOf(view), ...(view.order === "asc" ? {} : { order: view.order }) };
}

/** What a row is doing besides showing its plant: its edit form (as last read, with its ETag), or a delete to confirm. */
type RowMode =
  { kind: "edit"; plant: StoredPlant; etag: string; form: EditForm } | { kind: "confirm"; plant: StoredPlant } | null;

/** "50 of 60 plants shown; Load more for the next.", "1 of 1 plant shown.", "50 of more than 1000 …". */
function shownText(shown: number, count: PlantCount | null | undefined, more: boolean): string {
  const total = count == null ? shown : count.count;
  const of = count == null ? "" : ` of ${count.more ? "more than " : ""}${count.count}`;
  return `${shown}${of} ${total === 1 && count?.more !== true ? "plant" : "plants"} shown${more ? "; Load more for the next" : ""}.`;
}

const formOf = (plant: StoredPlant): EditForm => ({ name: plant.name, tag: plant.tag ?? "" });
const describePlant = (plant: StoredPlant) => `${plant.name} (${plant.id})`;
const describeVersion = (plant: StoredPlant) =>
  `${plant.name}, ${plant.tag === undefined ? "no tag" : `tag ${plant.tag}`}`;

export function Store(props: {
  client: PlantStoreClient;
  notice: Notice;
  say: Say;
  onAuthFailure: (error: unknown) => void;
  /** Told where the page's watch of the change stream is (the header shows it). */
  onLive: (state: LiveState) => void;
}) {
  const { client, notice, say } = props;
  const queryClient = useQueryClient();

  // The view: what the search fields say once typing pauses (or at once on Enter), and the order.
  const [nameInput, setNameInput] = useState("");
  const [tagInput, setTagInput] = useState("");
  const [filter, setFilter] = useState({ name: "", tag: "" });
  const [order, setOrder] = useState<Order>("asc");
  const view: View = useMemo(() => ({ ...filter, order }), [filter, order]);
  const applySearch = () =>
    setFilter((shown) => {
      const typed = { name: nameInput, tag: tagInput.trim() };
      return typed.name === shown.name && typed.tag === shown.tag ? shown : typed;
    });
  useEffect(() => {
    const timer = setTimeout(applySearch, SEARCH_DEBOUNCE_MS);
    // Typing on restarts the wait.
    return () => clearTimeout(timer);
  }, [nameInput, tagInput]);
  // Another view is another moment: what was said, and an open row form, belonged to the last one.
  const firstView = useRef(true);
  useEffect(() => {
    if (firstView.current) return void (firstView.current = false);
    say.clear();
    setRowMode(null);
  }, [view]);

  const queryKey = ["plants", view.name, view.tag, view.order];
  const plants = useInfiniteQuery({
    queryKey,
    // The signal aborts the request when the view changes before it is answered (typing on).
    queryFn: ({ pageParam, signal }) => client.listPlants(listQuery(view, pageParam), { signal }),
    initialPageParam: undefined as bigint | undefined,
    getNextPageParam: (last) => last.next,
    // The rows of the last view stay until the new ones arrive: the table does not blink or jump.
    placeholderData: keepPreviousData,
  });
  const update = (change: (data: Pages) => Pages) => {
    queryClient.setQueryData<Pages>(queryKey, (data) => (data === undefined ? data : change(data)));
    // Any change may change how many match: the count is asked again (the server bounds its cost).
    void queryClient.invalidateQueries({ queryKey: ["count"] });
  };
  // How many plants match the view, as the server counts them (exactly up to 1000, "more" above):
  // one small request of its own, so that a change re-counts without re-reading the pages.
  const count = useQuery({
    queryKey: ["count", view.name, view.tag],
    queryFn: async ({ signal }) =>
      (await client.listPlants({ limit: 1, ...filtersOf(view), count: true }, { signal })).count ?? null,
    placeholderData: keepPreviousData,
  });

  useEffect(() => {
    if (plants.error === null) return;
    // A token that stopped working (revoked, or the server forgot it): ask for another.
    if (plants.error instanceof PlantStoreError && plants.error.isAuthError()) props.onAuthFailure(plants.error);
    else say.refuse(plants.error);
    // Once per failure: the effect depends on the error alone.
  }, [plants.error]);

  const rows = useMemo(() => rowsOf(plants.data, view.order), [plants.data, view.order]);

  // Where the focus goes once the page has been drawn again (a row's button, a field, the table).
  const focusNext = useRef<string | null>(null);
  useEffect(() => {
    if (focusNext.current === null) return;
    const target = document.getElementById(focusNext.current) ?? document.getElementById("plants");
    focusNext.current = null;
    target?.focus();
  });
  const focusLater = (id: string) => (focusNext.current = id);

  const [rowMode, setRowMode] = useState<RowMode>(null);
  /** Closes the row's form or question, and gives the focus back to the button that opened it. */
  function closeRow(returnTo: string) {
    setRowMode(null);
    focusLater(returnTo);
  }

  // --- Add
  const [form, setForm] = useState<PlantForm>({ id: "", name: "", tag: "" });
  const add = useMutation({
    mutationFn: (plant: { id: bigint; name: string; tag?: string }) => client.createPlant(plant),
    onSuccess: (result, sent) => {
      const stored: StoredPlant = { id: sent.id, ...result.plant };
      update((data) => withPlant(data, stored, view));
      setForm({ id: "", name: "", tag: "" });
      say.tell(`${result.outcome === "replayed" ? "Already stored" : "Added"}: ${describePlant(stored)}.`);
      focusLater("add-id");
    },
    onError: (error) => {
      // A 409: the id is taken (by a plant with another name or tag).
      const field = error instanceof PlantStoreError && error.isConflict() ? "add-id" : undefined;
      say.refuse(error, field);
      focusLater(field ?? "add-id");
    },
  });
  function submitAdd(event: FormEvent) {
    event.preventDefault();
    say.clear();
    const checked = newPlantFrom(form);
    if (!checked.ok) {
      say.refuse(new Error(checked.reason), `add-${checked.field}`);
      return document.getElementById(`add-${checked.field}`)?.focus();
    }
    add.mutate(checked.plant);
  }

  // --- Edit in place
  /** Reads the plant with its ETag (the version the edit will be checked against) and turns its row into a form. */
  const startEdit = useMutation({
    mutationFn: (plant: StoredPlant) => client.readPlant(plant.id),
    onSuccess: (read) => {
      update((data) => withPlant(data, read.plant, view));
      setRowMode({ kind: "edit", plant: read.plant, etag: read.etag, form: formOf(read.plant) });
      focusLater("edit-name");
    },
    onError: (error, plant) => {
      say.refuse(error);
      if (error instanceof PlantStoreError && error.isNotFound()) update((data) => withoutPlant(data, plant.id));
    },
  });

  const save = useMutation({
    mutationFn: ({
      edit,
      plant,
    }: {
      edit: Extract<RowMode, { kind: "edit" }>;
      plant: { name: string; tag?: string };
    }) => client.updatePlant(edit.plant.id, plant, { ifMatch: edit.etag }),
    onSuccess: (result) => {
      update((data) => withPlant(data, result.plant, view));
      say.tell(`Saved ${describePlant(result.plant)}.`);
      closeRow(`edit-${result.plant.id}`);
    },
    onError: async (error, { edit }) => {
      if (!(error instanceof PlantStoreError && error.isPreconditionFailed())) {
        say.refuse(error);
        return focusLater("edit-name");
      }
      // Someone else changed (or deleted) it since it was read: show the plant as it is now, so the
      // person decides again from there; nothing of theirs was saved.
      const whose = describePlant(edit.plant);
      let current: VersionedPlant;
      try {
        current = await client.readPlant(edit.plant.id);
      } catch (readError) {
        if (!(readError instanceof PlantStoreError && readError.isNotFound())) return say.refuse(readError);
        update((data) => withoutPlant(data, edit.plant.id));
        say.refuse(new Error(`Someone else deleted ${whose} while you were editing it; your edit was not saved.`));
        return closeRow("plants");
      }
      update((data) => withPlant(data, current.plant, view));
      setRowMode({ kind: "edit", plant: current.plant, etag: current.etag, form: formOf(current.plant) });
      say.refuse(
        new Error(
          `Someone else changed ${whose} while you were editing it; your edit was not saved. ` +
            `The current version is shown: ${describeVersion(current.plant)}.`,
        ),
      );
      focusLater("edit-name");
    },
  });
  function submitEdit(event: FormEvent) {
    event.preventDefault();
    if (rowMode?.kind !== "edit") return;
    say.clear();
    const checked = plantUpdateFrom(rowMode.form);
    if (!checked.ok) {
      say.refuse(new Error(checked.reason), `edit-${checked.field}`);
      return document.getElementById(`edit-${checked.field}`)?.focus();
    }
    save.mutate({ edit: rowMode, plant: checked.plant });
  }

  // --- Delete, once confirmed
  const remove = useMutation({
    mutationFn: (plant: StoredPlant) => client.deletePlant(plant.id),
    onSuccess: (_result, plant) => {
      update((data) => withoutPlant(data, plant.id));
      say.tell(`Deleted ${describePlant(plant)}.`);
      // The row is gone with its buttons: the table keeps the focus, so the keyboard stays in place.
      closeRow("plants");
    },
    onError: (error, plant) => {
      say.refuse(error);
      // Someone else deleted it first: the row goes, as the plant has.
      if (error instanceof PlantStoreError && error.isNotFound()) update((data) => withoutPlant(data, plant.id));
      closeRow(`delete-${plant.id}`);
    },
  });

  function onRowKey(event: KeyboardEvent, plant: StoredPlant) {
    if (event.key !== "Escape" || rowMode?.plant.id !== plant.id) return;
    event.preventDefault();
    say.clear();
    closeRow(`${rowMode.kind === "edit" ? "edit" : "delete"}-${plant.id}`);
  }

  // --- Live: the table follows every committed change, from this tab or any other.
  /** The focus is on something in the row of plant `id`, which is about to go. */
  const focusIsInRow = (id: bigint) =>
    (document.activeElement?.closest("tr") as HTMLElement | null)?.dataset.id === String(id);
  const sameVersion = (etag: string, version: string | undefined) =>
    version !== undefined && etag.replace(/^W\//, "").replaceAll('"', "") === version;
  function applyChange(change: PlantChange) {
    // The changes since a cursor the server no longer keeps are gone: read the list again.
    if (change.kind === "reset") return void queryClient.invalidateQueries({ queryKey: ["plants"] });
    const { plant } = change;
    if (change.kind === "deleted" && focusIsInRow(plant.id)) focusLater("plants");
    update((data) => (change.kind === "deleted" ? withoutPlant(data, plant.id) : withPlant(data, plant, view)));
    // The other views kept in the cache are read again when shown.
    void queryClient.invalidateQueries({ queryKey: ["plants"], refetchType: "none" });

    if (rowMode === null || rowMode.plant.id !== plant.id) return;
    // This tab's own delete: its event can come before its answer, or after it but before the row's
    // closing has rendered; either way the answer says "Deleted …", not "someone else".
    if (change.kind === "deleted" && remove.isPending && remove.variables?.id === plant.id) return;
    const whose = describePlant(rowMode.plant);
    if (change.kind === "deleted") {
      setRowMode(null);
      say.refuse(
        new Error(
          rowMode.kind === "edit"
            ? `Someone else deleted ${whose} while you were editing it; there is nothing left to save.`
            : `Someone else deleted ${whose} already.`,
        ),
      );
    } else if (rowMode.kind === "edit" && !save.isPending && !sameVersion(rowMode.etag, change.version)) {
      // The form keeps what the person typed; its If-Match still names the version they started
      // from, so a save is refused (412) and shows them the new version: nothing is overwritten.
      say.refuse(
        new Error(
          `Someone else changed ${whose} while you are editing it: it is now ${describeVersion(plant)}. ` +
            "Saving will show you their version first; it will not overwrite it.",
        ),
      );
    }
  }
  const live = useLiveChanges(client, applyChange, props.onAuthFailure);
  useEffect(() => {
    props.onLive(live);
    // Changes committed between the first page's read and the stream's start are in no event:
    // once live (the first time), the pages are read again, and every later change arrives.
    if (live === "live" && !wasLive.current) {
      wasLive.current = true;
      void queryClient.invalidateQueries({ queryKey: ["plants"] });
    }
  }, [live]);
  const wasLive = useRef(false);

  const filtered = view.name !== "" || view.tag !== "";
  const note = plants.isPending
    ? "Loading…"
    : rows.length === 0
      ? filtered
        ? "No plant matches."
        : "No plants yet."
      : shownText(rows.length, count.data, plants.hasNextPage);

  return (
    <>
      <div className="panels">
        <section className="card" aria-labelledby="find-title">
          <h2 id="find-title">Find plants</h2>
          <form
            role="search"
            aria-labelledby="find-title"
            onSubmit={(event) => {
              event.preventDefault();
              applySearch();
            }}
          >
            <Field
              id="search-name"
              label="Search by name"
              notice={notice}
              type="search"
              autoComplete="off"
              spellCheck={false}
              value={nameInput}
              onChange={(event) => setNameInput(event.target.value)}
            />
            <Field
              id="filter-tag"
              label="Filter by tag"
              notice={notice}
              type="search"
              autoComplete="off"
              spellCheck={false}
              value={tagInput}
              onChange={(event) => setTagInput(event.target.value)}
            />
            {/* Enter applies the search at once; without it, typing applies it after a pause. */}
            <button type="submit" className="visually-hidden" tabIndex={-1}>
              Search
            </button>
          </form>
          <p className="hint">Names starting with what you type, in any case; tags exactly.</p>
        </section>

        <section className="card" aria-labelledby="add-title">
          <h2 id="add-title">Add a plant</h2>
          <form className="add" onSubmit={submitAdd} noValidate>
            <fieldset disabled={add.isPending}>
              <legend className="visually-hidden">New plant</legend>
              <Field
                id="add-id"
                label="Id"
                notice={notice}
                inputMode="numeric"
                autoComplete="off"
                value={form.id}
                onChange={(event) => setForm({ ...form, id: event.target.value })}
              />
              <Field
                id="add-name"
                label="Name"
                notice={notice}
                autoComplete="off"
                value={form.name}
                onChange={(event) => setForm({ ...form, name: event.target.value })}
              />
              <Field
                id="add-tag"
                label="Tag"
                notice={notice}
                autoComplete="off"
                value={form.tag}
                onChange={(event) => setForm({ ...form, tag: event.target.value })}
              />
              <button type="submit" className="primary">
                Add plant
              </button>
            </fieldset>
          </form>
        </section>
      </div>

      <div className="table-area">
        <table id="plants" tabIndex={-1} aria-busy={plants.isFetching}>
          <caption>Plants</caption>
          <colgroup>
            <col className="col-id" />
            <col className="col-name" />
            <col className="col-tag" />
            <col className="col-actions" />
          </colgroup>
          <thead>
            <tr>
              <th scope="col" aria-sort={view.order === "asc" ? "ascending" : "descending"}>
                <button type="button" className="sort" onClick={() => setOrder(order === "asc" ? "desc" : "asc")}>
                  Id<span aria-hidden="true">{view.order === "asc" ? " ↑" : " ↓"}</span>
                </button>
              </th>
              <th scope="col">Name</th>
              <th scope="col">Tag</th>
              <th scope="col">
                <span className="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {rows.map((plant) => {
              const mode = rowMode?.plant.id === plant.id ? rowMode : null;
              const label = describePlant(plant);
              if (mode?.kind === "edit") {
                const setEditForm = (change: Partial<EditForm>) =>
                  setRowMode({ ...mode, form: { ...mode.form, ...change } });
                return (
                  <tr
                    key={String(plant.id)}
                    data-id={String(plant.id)}
                    className="editing"
                    onKeyDown={(event) => onRowKey(event, plant)}
                  >
                    <td className="id">{String(plant.id)}</td>
                    <td>
                      <Field
                        id="edit-name"
                        label="New name"
                        hideLabel
                        notice={notice}
                        form="edit-form"
                        autoComplete="off"
                        disabled={save.isPending}
                        value={mode.form.name}
                        onChange={(event) => setEditForm({ name: event.target.value })}
                      />
                    </td>
                    <td>
                      <Field
                        id="edit-tag"
                        label="New tag"
                        hideLabel
                        notice={notice}
                        form="edit-form"
                        autoComplete="off"
                        disabled={save.isPending}
                        value={mode.form.tag}
                        onChange={(event) => setEditForm({ tag: event.target.value })}
                      />
                    </td>
                    <td>
                      {/* The row's inputs belong to this form (form="edit-form"): Enter in either saves. */}
                      <form id="edit-form" className="actions" onSubmit={submitEdit} noValidate>
                        <button type="submit" className="primary" disabled={save.isPending}>
                          Save
                        </button>
                        <button
                          type="button"
                          onClick={() => {
                            say.clear();
                            closeRow(`edit-${plant.id}`);
                          }}
                        >
                          Cancel
                        </button>
                      </form>
                    </td>
                  </tr>
                );
              }
              if (mode?.kind === "confirm") {
                return (
                  <tr
                    key={String(plant.id)}
                    data-id={String(plant.id)}
                    className="confirming"
                    onKeyDown={(event) => onRowKey(event, plant)}
                  >
                    <td className="id">{String(plant.id)}</td>
                    <td colSpan={3}>
                      <div className="confirm">
                        <p id={`confirm-${plant.id}`}>Delete {label}? This cannot be undone.</p>
                        <div className="actions">
                          <button
                            type="button"
                            className="danger"
                            aria-label={`Yes, delete ${label}`}
                            aria-describedby={`confirm-${plant.id}`}
                            disabled={remove.isPending}
                            onClick={() => {
                              say.clear();
                              remove.mutate(plant);
                            }}
                          >
                            Delete
                          </button>
                          <button
                            type="button"
                            id={`keep-${plant.id}`}
                            aria-label={`Keep ${label}`}
                            disabled={remove.isPending}
                            onClick={() => {
                              say.clear();
                              closeRow(`delete-${plant.id}`);
                            }}
                          >
                            Keep
                          </button>
                        </div>
                      </div>
                    </td>
                  </tr>
                );
              }
              return (
                <tr key={String(plant.id)} data-id={String(plant.id)}>
                  <td className="id">{String(plant.id)}</td>
                  <td>{plant.name}</td>
                  <td>{plant.tag ?? ""}</td>
                  <td>
                    <div className="actions">
                      <button
                        type="button"
                        id={`edit-${plant.id}`}
                        aria-label={`Edit ${label}`}
                        disabled={startEdit.isPending && startEdit.variables?.id === plant.id}
                        onClick={() => {
                          say.clear();
                          startEdit.mutate(plant);
                        }}
                      >
                        Edit
                      </button>
                      <button
                        type="button"
                        id={`delete-${plant.id}`}
                        aria-label={`Delete ${label}`}
                        onClick={() => {
                          say.clear();
                          setRowMode({ kind: "confirm", plant });
                          // The safe answer first: Enter twice does not delete.
                          focusLater(`keep-${plant.id}`);
                        }}
                      >
                        Delete
                      </button>
                    </div>
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
        <p className="table-note" aria-live="polite">
          {note}
        </p>
        {plants.hasNextPage ? (
          <button
            type="button"
            onClick={() => {
              say.clear();
              void plants.fetchNextPage();
            }}
            disabled={plants.isFetchingNextPage}
          >
            Load more
          </button>
        ) : null}
      </div>
    </>
  );
}
