// Ask: a question with its scope, answered by POST /v1/chat as a stream.

import { KEY_HELP, streamChat } from "./api.js";
import { el, renderAnswer } from "./answer.js";
import { chosenScope, loadCollections } from "./scope.js";

const $ = (id) => document.getElementById(id);

const list = (value) =>
  value
    .split(",")
    .map((item) => item.trim())
    .filter(Boolean);

let conversationId = null;

// The conversation the questions asked here go to; the conversation view opens it.
export function askedConversation() {
  return conversationId;
}

function request(question) {
  const tags = list($("ask-tags").value);
  const start = $("ask-period-start").value.trim();
  const end = $("ask-period-end").value.trim();
  const scope = {
    ...chosenScope(),
    tags: tags.length ? tags : null,
    period: start || end ? { start: start || null, end: end || null } : null,
  };
  return {
    messages: [{ role: "user", content: question }],
    scope,
    quality: document.querySelector("input[name=quality]:checked").value,
    language: $("ask-language").value,
    origin: "web",
    ...(conversationId ? { conversation_id: conversationId } : {}),
  };
}

// An idempotency key per question; crypto.randomUUID exists only on https and localhost.
function requestId() {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return `web-${[...bytes].map((b) => b.toString(16).padStart(2, "0")).join("")}`;
}

// Streams one answer into `target`; resolves with the done payload (or null on failure,
// shown in `errorBox`). Shared with the conversation view's edit and regenerate.
export async function streamInto(target, body, errorBox) {
  errorBox.hidden = true;
  const answer = el("p", { class: "answer streaming" });
  target.replaceChildren(answer);
  target.setAttribute("aria-busy", "true");
  try {
    return await streamChat({ ...body, request_id: requestId() }, (text) => {
      answer.textContent += text;
    });
  } catch (failure) {
    target.replaceChildren();
    errorBox.textContent = failure.needsKey
      ? KEY_HELP
      : failure.code
        ? `${failure.message} (${failure.code})`
        : failure.message;
    errorBox.hidden = false;
    return null;
  } finally {
    target.setAttribute("aria-busy", "false");
  }
}

// A language's name in English ("de" → "German"); the code itself when the browser has none.
function languageName(code) {
  try {
    return new Intl.DisplayNames(["en"], { type: "language" }).of(code) ?? code;
  } catch {
    return code;
  }
}

// The extractive composer can only quote: without documents in the asked language it answers
// in theirs (a model may not comply either), and the page says so. A text node: nothing the
// server sends is read as markup.
function languageNotice(done) {
  const { language, requested_language: requested } = done;
  if (!language || !requested || language === requested) return [];
  const text = `This answer is in ${languageName(language)}, not in ${languageName(requested)} as asked.`;
  return [el("p", { class: "language-notice", role: "note" }, text)];
}

// Why an answer refuses, by its reason code (docs/chat-completions.md).
const REFUSALS = {
  no_relevant_passage: "No passage of the documents is about this question.",
  passages_do_not_answer: "The passages found do not answer this question.",
  answer_not_grounded: "The answer written was not backed by the passages it cited.",
};

// Confidence is how likely the answer answers the question; the support score only says how
// well the cited passages back its text (a quote always backs itself), so it is labelled so.
function refusalNotice(done) {
  const reason = done.refusal_reason;
  if (typeof reason !== "string") return [];
  return [el("p", { class: "refusal", role: "note" }, REFUSALS[reason] ?? reason)];
}

export function showDone(target, done, onFresh) {
  const body = el("div", { class: "answer-body" });
  const scored = renderAnswer(body, done.text, done.citations, done.grounding_supports);
  const meta = el(
    "p",
    { class: "meta" },
    typeof done.confidence === "number" && done.refusal_reason == null
      ? el(
          "span",
          { title: "How likely this answer answers the question" },
          `Confidence ${done.confidence.toFixed(2)} · `,
        )
      : "",
    done.support_score === null
      ? ""
      : el(
          "span",
          { title: "How well the cited passages back the text (not whether it answers)" },
          `Citations back the text ${done.support_score.toFixed(2)} · `,
        ),
    done.quality,
    done.language ? ` · ${done.language}` : "",
  );
  target.replaceChildren(body, meta, ...refusalNotice(done), ...languageNotice(done));
  if (done.cached) {
    target.append(
      el(
        "p",
        { class: "cached", role: "status" },
        "This answer came from the cache. ",
        el("button", { type: "button", class: "fresh", onclick: onFresh }, "Get a fresh answer"),
      ),
    );
  }
  return scored;
}

async function ask(body) {
  const result = $("ask-result");
  const submit = $("ask-submit");
  result.hidden = false;
  submit.disabled = true;
  const question = body.messages.at(-1).content;
  const heading = el("h2", {}, question);
  const answer = el("div");
  result.replaceChildren(heading, answer);
  const done = await streamInto(answer, body, $("ask-error"));
  submit.disabled = false;
  if (!done) return;
  conversationId = done.conversation_id;
  $("ask-conversation").textContent = `In conversation ${conversationId}`;
  const fresh = () =>
    ask({ ...body, bypass_cache: true, version_of: done.question_id, conversation_id: conversationId });
  await showDone(answer, done, fresh);
}

// Asks `question` as the form would, with `overrides` on top (a starter's `language`).
export function askWith(question, overrides) {
  $("ask-question").value = question;
  ask({ ...request(question), ...overrides });
}

export function setupAsk() {
  loadCollections();
  $("ask-form").addEventListener("submit", (event) => {
    event.preventDefault();
    const question = $("ask-question").value.trim();
    if (question) ask(request(question));
  });
  $("ask-question").addEventListener("keydown", (event) => {
    // Ctrl+Enter (⌘+Enter) asks, as in most chat boxes; Enter alone adds a line.
    if (event.key === "Enter" && (event.ctrlKey || event.metaKey)) {
      event.preventDefault();
      $("ask-form").requestSubmit();
    }
  });
  $("ask-new").addEventListener("click", () => {
    conversationId = null;
    $("ask-conversation").textContent = "A new conversation starts with the next question.";
    $("ask-result").hidden = true;
  });
}
