// The scope pickers of Ask: the collections the key's user may search (GET /v1/collections)
// as checkboxes, and one source of the chosen collections.

import { collections } from "./api.js";
import { el } from "./answer.js";

const $ = (id) => document.getElementById(id);

let listed = [];

function chosenNames() {
  return [...$("ask-collections").querySelectorAll("input:checked")].map((box) => box.value);
}

// The chosen collections, or every listed one when none is chosen.
function searched() {
  const names = chosenNames();
  return names.length ? listed.filter((c) => names.includes(c.name)) : listed;
}

function say(text) {
  $("ask-collections-help").textContent = text;
}

function fillSources() {
  const select = $("ask-source");
  const kept = select.value;
  const groups = searched()
    .filter((collection) => collection.sources.length)
    .map((collection) =>
      el(
        "optgroup",
        { label: collection.title || collection.name },
        ...collection.sources.map((source) =>
          el("option", { value: source.id }, source.title || source.location),
        ),
      ),
    );
  select.replaceChildren(el("option", { value: "" }, "Any source"), ...groups);
  // A source of a collection no longer chosen is dropped, not sent.
  select.value = [...select.options].some((option) => option.value === kept) ? kept : "";
}

export async function loadCollections() {
  const box = $("ask-collections");
  const before = new Set(chosenNames());
  listed = [];
  box.replaceChildren();
  fillSources();
  say("Loading your collections…");
  try {
    listed = (await collections()).data;
  } catch (failure) {
    say(
      failure.needsKey
        ? "Enter your API key to list your collections."
        : `Your collections could not be listed: ${failure.message}`,
    );
    return;
  }
  box.replaceChildren(
    ...listed.map((collection) =>
      el(
        "label",
        {},
        el("input", {
          type: "checkbox",
          name: "collection",
          value: collection.name,
          checked: before.has(collection.name),
          onchange: fillSources,
        }),
        ` ${collection.title || collection.name}`,
        collection.title ? el("span", { class: "hint" }, ` (${collection.name})`) : null,
      ),
    ),
  );
  say(
    listed.length
      ? "None chosen: all of them."
      : "This key may not search any collection yet: ask for access.",
  );
  fillSources();
}

// The collections and source of the request's scope; none chosen sends every listed one.
export function chosenScope() {
  const names = searched().map((collection) => collection.name);
  return {
    collections: names.length ? names : null,
    source_id: $("ask-source").value || null,
  };
}
