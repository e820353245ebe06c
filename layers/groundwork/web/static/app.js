// Wires the three views, the tabs between them and the API key field.

import { apiKey, setApiKey } from "./api.js";
import { askedConversation, setupAsk } from "./ask.js";
import { setupConversations, showConversations } from "./conversations.js";
import { setupGrounding } from "./grounding.js";
import { watchIndexing } from "./indexing.js";
import { loadCollections } from "./scope.js";
import { setupStarters } from "./starters.js";

const tabs = [...document.querySelectorAll("[role=tab]")];

function select(tab) {
  for (const other of tabs) {
    const chosen = other === tab;
    other.setAttribute("aria-selected", String(chosen));
    other.tabIndex = chosen ? 0 : -1;
    document.getElementById(other.getAttribute("aria-controls")).hidden = !chosen;
  }
  tab.focus();
  if (tab.id === "tab-conversations") showConversations(askedConversation());
}

for (const tab of tabs) {
  tab.addEventListener("click", () => select(tab));
  // Arrow keys move between tabs, Home and End jump to the ends (the ARIA tabs pattern).
  tab.addEventListener("keydown", (event) => {
    const at = tabs.indexOf(tab);
    const to = {
      ArrowRight: (at + 1) % tabs.length,
      ArrowLeft: (at - 1 + tabs.length) % tabs.length,
      Home: 0,
      End: tabs.length - 1,
    }[event.key];
    if (to !== undefined) {
      event.preventDefault();
      select(tabs[to]);
    }
  });
}

const keyField = document.getElementById("api-key");
keyField.value = apiKey();
document.getElementById("key-form").addEventListener("submit", (event) => {
  event.preventDefault();
  setApiKey(keyField.value.trim());
  document.getElementById("api-key-help").textContent = keyField.value.trim()
    ? "Saved in this browser."
    : "Removed from this browser.";
  // What the pickers and the list hold belongs to the key: list them again for the new one.
  loadCollections();
  if (!document.getElementById("view-conversations").hidden) showConversations();
});

setupAsk();
setupConversations();
setupGrounding();
setupStarters();
watchIndexing();
document.body.dataset.ready = "true";
