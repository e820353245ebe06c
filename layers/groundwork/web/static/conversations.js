// Conversations: the key's user's conversations (GET /v1/conversations), each one's feed,
// and versions of its turns.

import { conversations, feed, selectVersion } from "./api.js";
import { el } from "./answer.js";
import { showDone, streamInto } from "./ask.js";

const $ = (id) => document.getElementById(id);
const PAGE = 20;

let listed = [];
let nextCursor = null;
let current = null;
let lastAsked = null;

// Lists the conversations again and opens one: `asked` (the conversation of Ask) when it is
// new since the last time, else the one open before if it is listed, else the most recent.
export async function showConversations(asked = null) {
  const fresh = Boolean(asked) && asked !== lastAsked;
  if (fresh) lastAsked = asked;
  const page = await fetchPage(null);
  if (!page) {
    listed = [];
    nextCursor = null;
    current = null;
    $("conv-feed").replaceChildren();
    return;
  }
  listed = page.data;
  nextCursor = page.next_cursor;
  if (fresh) current = asked;
  else if (!listed.some((c) => c.id === current)) current = listed[0]?.id ?? null;
  renderList("None yet: ask a question first.");
  if (current) open(current);
}

async function fetchPage(cursor) {
  try {
    return await conversations(PAGE, cursor);
  } catch (failure) {
    if (failure.needsKey) renderList("Enter your API key to see your conversations.");
    else fail(failure);
    return null;
  }
}

function renderList(emptyText) {
  $("conv-empty").textContent = listed.length ? "" : emptyText;
  $("conv-empty").hidden = listed.length > 0;
  $("conv-more").hidden = !nextCursor;
  $("conv-list").replaceChildren(
    ...listed.map((c) =>
      el(
        "li",
        {},
        el(
          "button",
          {
            type: "button",
            "data-id": c.id,
            "aria-current": String(c.id === current),
            onclick: () => open(c.id),
          },
          c.title || "Untitled conversation",
          el("span", { class: "hint" }, ` ${new Date(c.updated * 1000).toLocaleString()}`),
        ),
      ),
    ),
  );
}

export function setupConversations() {
  $("conv-more").addEventListener("click", async () => {
    const page = await fetchPage(nextCursor);
    if (!page) return;
    const before = listed.length;
    listed.push(...page.data);
    nextCursor = page.next_cursor;
    renderList("None yet: ask a question first.");
    // Keyboard users go on from the first conversation the button added.
    ($("conv-list").children[before]?.querySelector("button") ?? $("conv-more")).focus();
  });
}

async function open(id) {
  current = id;
  for (const button of $("conv-list").querySelectorAll("button")) {
    button.setAttribute("aria-current", String(button.dataset.id === id));
  }
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
  if (item.withheld) {
    // Answered from documents the key's user no longer sees: the server sent no text.
    answer.replaceChildren(
      el(
        "p",
        { class: "withheld", role: "status" },
        "This answer came from documents you no longer have access to. " +
          "Regenerate it to answer from what you can see now.",
      ),
    );
  } else {
    showDone(
      answer,
      {
        text: item.answer,
        citations: item.citations,
        grounding_supports: item.grounding_supports,
        support_score: item.support_score,
        cached: item.cached,
        quality: item.quality,
        language: null,
      },
      regenerate,
    );
  }
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
