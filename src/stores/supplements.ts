/**
 * The dashboard's supplement list, shared by its islands (stat cards, list, side
 * card, dialogs), with the actions that change it. Seeded from the server's render;
 * refreshed after each change; never polled, refetched on focus or retried.
 */
import { atom } from "nanostores";
import { api, errorMessage } from "../lib/api";
import { UNDO_DELETE_MS } from "../lib/constants";
import { SUPPLEMENT_MESSAGES } from "../lib/messages";
import { STOCK_MESSAGES } from "../lib/stock";
import type { StockInput } from "../lib/stock-input";
import { notify, showToast } from "../lib/toast";
import type { Supplement } from "../lib/types";
import type { SupplementBody } from "../lib/validation";

export const $supplements = atom<Supplement[]>([]);
export const $supplementsLoaded = atom(false);

/** The list an island shows: the store once loaded, else what the server rendered with. */
export function visibleList(loaded: boolean, fromStore: Supplement[], fromServer: Supplement[] | null) {
  return loaded ? fromStore : (fromServer ?? []);
}

/** Which dialog is open on the dashboard. */
export type DialogState =
  | { kind: "add" }
  | { kind: "edit"; supplement: Supplement }
  | { kind: "stock"; supplement: Supplement }
  | { kind: "share" }
  | null;
export const $dialog = atom<DialogState>(null);

/** Browser only, like seedUser: a server render reads its props. */
export function seedSupplements(list: Supplement[] | null) {
  if (typeof window === "undefined" || $supplementsLoaded.get() || !list) return;
  $supplements.set(list);
  $supplementsLoaded.set(true);
}

export async function loadSupplements() {
  const list = await api.get<Supplement[]>("/api/supplements");
  $supplements.set(list);
  $supplementsLoaded.set(true);
}

export async function addSupplement(input: SupplementBody) {
  await api.post<Supplement>("/api/supplements", input);
  await loadSupplements();
}

export async function updateSupplement(id: number, input: SupplementBody) {
  await api.put<Supplement>(`/api/supplements/${id}`, input);
  await loadSupplements();
}

/**
 * Optimistic: the row goes at once and comes back if the server refuses. Then a toast offers
 * Undo for UNDO_DELETE_MS: the server puts the supplement back exactly (docs/undo-delete.md).
 */
export async function deleteSupplement(id: number) {
  const before = $supplements.get();
  $supplements.set(before.filter((s) => s.id !== id));
  try {
    await api.delete(`/api/supplements/${id}`);
  } catch {
    notify.error(SUPPLEMENT_MESSAGES.deleteFailed);
    await restoreFromServer(before);
    return;
  }
  showToast({
    kind: "success",
    title: SUPPLEMENT_MESSAGES.deleted,
    duration: UNDO_DELETE_MS,
    action: { label: SUPPLEMENT_MESSAGES.undo, onClick: () => void undoDelete(id) },
  });
}

/** Undo of a delete: the supplement comes back in its place, or an error says why not. */
export async function undoDelete(id: number) {
  try {
    await api.post<Supplement>(`/api/supplements/${id}/restore`);
  } catch (error) {
    notify.error(errorMessage(error, SUPPLEMENT_MESSAGES.restoreFailed));
  }
  await restoreFromServer($supplements.get());
}

/** Optimistic: the list moves at once, the full id list is sent, a refusal restores the server's order. */
export async function reorderSupplements(ordered: Supplement[]) {
  const before = $supplements.get();
  $supplements.set(ordered);
  try {
    await api.put<Supplement[]>("/api/supplements/reorder", { supplementIds: ordered.map((s) => s.id) });
  } catch {
    notify.error(SUPPLEMENT_MESSAGES.reorderFailed);
    await restoreFromServer(before);
  }
}

async function restoreFromServer(fallback: Supplement[]) {
  try {
    await loadSupplements();
  } catch {
    $supplements.set(fallback);
  }
}

/** Issue 40: a pack size and/or a count ('I have N left'); the list then shows what is left. */
export async function saveStock(id: number, input: StockInput) {
  await api.put(`/api/supplements/${id}/stock`, input);
  await loadSupplements();
}

/** `+1 pack`: adds the supplement's units per pack to what is left. */
export async function addPack(id: number) {
  try {
    await api.post(`/api/supplements/${id}/refills`, { packs: 1 });
  } catch (error) {
    notify.error(errorMessage(error, STOCK_MESSAGES.packFailed));
    return;
  }
  notify.success(STOCK_MESSAGES.packAdded);
  await restoreFromServer($supplements.get());
}

/** After a tick: what is left changed, when any supplement counts its stock. */
export async function refreshStock() {
  if (!$supplements.get().some((s) => s.stock?.left != null)) return;
  await restoreFromServer($supplements.get());
}
