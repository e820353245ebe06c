// Conversations: those started on this browser, each one's feed, and versions of its turns.

import { feed, selectVersion } from "./api.js";
import { el } from "./answer.js";
import { showDone, streamInto } from "./ask.js";

const $ = (id) => document.getElementById(id);
const STORE = "groundwork.conversations";

// The API has no listing of a user's conversations: the page keeps the ids it started.
function known() {
  try {
    return JSON.parse(localStorage.getItem(STORE)) || [];
  } catch {
    return [];
  }
}

export function remember(id, title) {
  const others = known().filter((c) => c.id !== id);
  const earlier = known().find((c) => c.id === id);
  const entry = { id, title: earlier?.title || title, updated: Date.now() };
  localStorage.setItem(STORE, JSON.stringify([entry, ...others].slice(0, 100)));
}

let current = null;

export function showConversations() {
  const conversations = known();
  $("conv-empty").hidden = conversations.length > 0;
  $("conv-list").replaceChildren(
    ...conversations.map((c) =>
      el(
        "li",
        {},
        el(
          "button",
          {
            type: "button",
            "aria-current": c.id === current ? "true" : null,
            onclick: () => open(c.id),
          },
          c.title,
          el("span", { class: "hint" }, ` ${new Date(c.updated).toLocaleString()}`),
        ),
      ),
    ),
  );
  if (!current && conversations.length) open(conversations[0].id);
}

async function open(id) {
  current = id;
  showConversations();
  try {
    render(await feed(id));
  } catch (failure) {
    fail(failure);
  }
}

function fail(failure) {
  $("conv-error").textContent = failure.code
    ? `${failure.message} (${failure.code})`
    : failure.message;
  $("conv-error").hidden = false;
}

function render(data, focusTurn = null) {
  $("conv-error").hidden = true;
  const items = data.items.map((item) => turn(data.conversation_id, item));
  $("conv-feed").replaceChildren(...items);
  if (focusTurn !== null) {
    $("conv-feed").querySelector(`[data-turn="${focusTurn}"] select`)?.focus();
  }
}

function turn(conversationId, item) {
  const answer = el("div", { class: "answer-slot" });
  const question = el("h3", { class: "question" }, item.question);
  const node = el("article", { class: "turn", "data-turn": String(item.turn_id) });
  const again = async (text, extra) => {
    const done = await streamInto(
      answer,
      {
        messages: [{ role: "user", content: text }],
        conversation_id: conversationId,
        version_of: item.question_id,
        quality: item.quality,
        origin: "web",
        ...extra,
      },
      $("conv-error"),
    );
    if (done) render(await feed(conversationId), item.turn_id);
  };
  const regenerate = () => again(item.question, { bypass_cache: true });
  showDone(
    answer,
    {
      text: item.answer,
      citations: item.citations,
      support_score: item.support_score,
      cached: item.cached,
      quality: item.quality,
      language: null,
    },
    regenerate,
  );
  const edit = () => {
    const box = el("textarea", { rows: "2", "aria-label": "Edited question" });
    box.value = item.question;
    const form = el(
      "form",
      {
        class: "edit",
        onsubmit: (event) => {
          event.preventDefault();
          if (box.value.trim()) again(box.value.trim(), {});
        },
      },
      box,
      el("button", { type: "submit" }, "Ask the edited question"),
      el("button", { type: "button", onclick: () => form.replaceWith(question) }, "Cancel"),
    );
    question.replaceWith(form);
    box.focus();
  };
  const versions = el(
    "select",
    {
      "aria-label": `Version of “${item.question}”`,
      onchange: async (event) => {
        try {
          render(await selectVersion(conversationId, Number(event.target.value)), item.turn_id);
        } catch (failure) {
          fail(failure);
        }
      },
    },
    ...item.versions.map((version, n) =>
      el(
        "option",
        { value: String(version.question_id), selected: version.selected },
        `Version ${n + 1} of ${item.versions.length} · ${version.quality} · ${version.question}`,
      ),
    ),
  );
  node.append(
    question,
    answer,
    el(
      "div",
      { class: "actions" },
      el("label", {}, "Version ", versions),
      el("button", { type: "button", onclick: edit }, "Edit question"),
      el("button", { type: "button", onclick: regenerate }, "Regenerate answer"),
    ),
  );
  return node;
}
