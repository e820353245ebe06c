// The public API, called exactly as any other client calls it.

const KEY = "groundwork.apiKey";

export function apiKey() {
  return localStorage.getItem(KEY) || "";
}

export function setApiKey(key) {
  if (key) localStorage.setItem(KEY, key);
  else localStorage.removeItem(KEY);
}

export class ApiFailure extends Error {
  constructor(status, error) {
    super(error?.message || `The service answered ${status}.`);
    this.status = status;
    this.code = error?.code || null;
  }

  // The service wants a key (none was saved, or not a valid one). On a laptop it asks for
  // none: `groundwork serve` lets this computer's own requests in as the user `local`.
  get needsKey() {
    return this.status === 401;
  }
}

export const KEY_HELP =
  "This needs an API key: enter it at the top of the page (an admin makes one with " +
  "`groundwork admin create-key`).";

function headers() {
  const sent = { "Content-Type": "application/json" };
  const key = apiKey();
  if (key) sent.Authorization = `Bearer ${key}`;
  return sent;
}

async function failure(response) {
  let body = null;
  try {
    body = await response.json();
  } catch {
    // Not JSON: the status alone says what happened.
  }
  return new ApiFailure(response.status, body?.error);
}

export async function call(method, path, body) {
  const response = await fetch(path, {
    method,
    headers: headers(),
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (!response.ok) throw await failure(response);
  return response.json();
}

// POST /v1/chat with stream: true; calls onToken(text) per delta and resolves with the done
// payload. An `error` event rejects with its code, like an HTTP error would.
export async function streamChat(body, onToken) {
  const response = await fetch("v1/chat", {
    method: "POST",
    headers: { ...headers(), Accept: "text/event-stream" },
    body: JSON.stringify({ ...body, stream: true }),
  });
  if (!response.ok) throw await failure(response);
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let buffered = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    buffered += decoder.decode(value, { stream: true });
    let end;
    while ((end = buffered.indexOf("\n\n")) >= 0) {
      const event = parseEvent(buffered.slice(0, end));
      buffered = buffered.slice(end + 2);
      if (event.name === "token") onToken(event.data.text);
      else if (event.name === "done") return event.data;
      else if (event.name === "error") throw new ApiFailure(500, event.data.error);
    }
  }
  throw new ApiFailure(502, { message: "The answer stopped before it was finished." });
}

function parseEvent(block) {
  let name = "message";
  const data = [];
  for (const line of block.split("\n")) {
    if (line.startsWith("event:")) name = line.slice(6).trim();
    else if (line.startsWith("data:")) data.push(line.slice(5).trimStart());
  }
  return { name, data: data.length ? JSON.parse(data.join("\n")) : null };
}

export function checkGrounding(candidate, facts, threshold, claimScores = true) {
  return call("POST", "v1/grounding:check", {
    answerCandidate: candidate,
    facts,
    groundingSpec: { citationThreshold: threshold, enableClaimLevelScore: claimScores },
  });
}

export function health() {
  return call("GET", "health");
}

export function collections() {
  return call("GET", "v1/collections");
}

// One page of the key's user's conversations, most recently updated first.
export function conversations(limit, cursor = null) {
  const query = new URLSearchParams({ limit: String(limit) });
  if (cursor) query.set("cursor", cursor);
  return call("GET", `v1/conversations?${query}`);
}

export function feed(conversationId) {
  return call("GET", `v1/conversations/${encodeURIComponent(conversationId)}/feed`);
}

export function conversation(conversationId) {
  return call("GET", `v1/conversations/${encodeURIComponent(conversationId)}`);
}

export function selectVersion(conversationId, questionId) {
  return call("POST", `v1/conversations/${encodeURIComponent(conversationId)}/versions`, {
    question_id: questionId,
  });
}
