// Starters: suggested questions of the picked collections (GET v1/starters), shown while the
// conversation is empty. Clicking one asks it with its own language, which may differ from
// the page's: a German starter is answered in German.

import { call } from "./api.js";
import { el } from "./answer.js";
import { askedConversation, askWith } from "./ask.js";
import { chosenScope } from "./scope.js";

const $ = (id) => document.getElementById(id);
const SHOWN = 6;

let loading = 0;

function hide() {
  loading += 1; // an answer still on its way is for an empty conversation no more
  $("ask-starters").hidden = true;
}

async function show() {
  const names = chosenScope().collections;
  const asking = ++loading;
  if (!names || askedConversation() !== null || !$("ask-result").hidden) {
    $("ask-starters").hidden = true;
    return;
  }
  let found;
  try {
    // One listing for every collection: the service orders them (an admin's first).
    found = (await call("GET", "v1/starters?limit=100")).data;
  } catch {
    found = []; // Starters are a convenience: without them the page works as before.
  }
  if (asking !== loading) return;
  const chosen = found.filter((starter) => names.includes(starter.collection)).slice(0, SHOWN);
  $("ask-starters-list").replaceChildren(
    ...chosen.map((starter) =>
      el(
        "li",
        {},
        el(
          "button",
          {
            type: "button",
            class: "starter",
            lang: starter.language,
            "data-language": starter.language,
            onclick: () => {
              hide();
              askWith(starter.text, starter.language ? { language: starter.language } : {});
            },
          },
          starter.text,
        ),
      ),
    ),
  );
  $("ask-starters").hidden = chosen.length === 0;
}

export function setupStarters() {
  // The collection checkboxes are rebuilt when the key changes and toggled by the user.
  new MutationObserver(show).observe($("ask-collections"), { childList: true });
  $("ask-collections").addEventListener("change", show);
  $("ask-form").addEventListener("submit", hide);
  $("ask-new").addEventListener("click", show);
  show();
}
