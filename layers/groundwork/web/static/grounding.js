// Check grounding: an answer and facts in, claims highlighted by score and linked to the
// fact spans they cite.

import { checkGrounding } from "./api.js";
import { el, tintOf } from "./answer.js";

const $ = (id) => document.getElementById(id);

// The contract's reference example: the second claim names Brad Pitt, whom no fact supports.
const EXAMPLE = {
  candidate: "Titanic was directed by James Cameron. It starred Brad Pitt and Kate Winslet.",
  facts: [
    {
      text:
        "Titanic is a 1997 American romance and disaster movie. It was directed, written, and " +
        "co-produced by James Cameron. The movie is about the 1912 sinking of the RMS Titanic. " +
        "It stars Kate Winslet and Leonardo DiCaprio. The movie was released on December 19, " +
        "1997. It won 11 Academy Awards from 14 nominations.",
      attributes: "title: Titanic (1997 movie)\nauthor: Simple Wikipedia",
    },
    {
      text:
        "James Cameron&#39;s &quot;Titanic&quot; is an epic, action-packed romance set against " +
        "the ill-fated maiden voyage of the R.M.S. Titanic; the pride and joy of the White Star " +
        "Line and, at the time, the largest moving object ever built. She was the most luxurious " +
        "liner of her era -- the &quot;ship of dreams&quot; -- which ultimately carried over " +
        "1,500 people to their death in the ice cold waters of the North Atlantic in the early " +
        "hours of April 15, 1912.",
      attributes: "author: Rotten Tomatoes",
    },
  ],
};

function addFact(text = "", attributes = "") {
  const item = $("fact-template").content.firstElementChild.cloneNode(true);
  item.querySelector(".fact-text").value = text;
  item.querySelector(".fact-attributes").value = attributes;
  item.querySelector(".fact-remove").addEventListener("click", () => {
    item.remove();
    $("g-add-fact").focus();
  });
  $("g-facts").append(item);
  return item;
}

function attributesOf(lines) {
  const attributes = {};
  for (const line of lines.split("\n")) {
    const at = line.indexOf(":");
    if (at > 0) attributes[line.slice(0, at).trim()] = line.slice(at + 1).trim();
  }
  return attributes;
}

// Claims come with UTF-8 byte offsets; the page works in UTF-16 string indices.
export function charRange(candidate, startPos, endPos) {
  const bytes = new TextEncoder().encode(candidate);
  const decoder = new TextDecoder();
  const start = decoder.decode(bytes.slice(0, startPos)).length;
  return [start, start + decoder.decode(bytes.slice(startPos, endPos)).length];
}

// Facts come back with HTML entities decoded in citedChunks; show facts the same way.
function decoded(text) {
  const area = document.createElement("textarea");
  area.innerHTML = text;
  return area.value;
}

function claimNode(text, claim, index) {
  const cited = claim.citationIndices || [];
  let state;
  let words;
  if (!claim.groundingCheckRequired) {
    state = "none";
    words = "states no fact, not checked";
  } else if (!cited.length) {
    state = "weak";
    words = "unsupported: no fact supports it";
  } else {
    state = claim.score === undefined ? "strong" : tintOf(claim.score);
    words = "supported";
  }
  const score = claim.score === undefined ? "" : ` ${claim.score.toFixed(2)}`;
  return el(
    "span",
    {
      class: `claim tint-${state}`,
      id: `g-claim-${index}`,
      "data-score": claim.score === undefined ? null : claim.score.toFixed(2),
      title: `Claim ${index + 1}: ${words}${score}`,
    },
    text,
    el("span", { class: "sr-only" }, ` (claim ${index + 1}: ${words}${score})`),
    ...cited.map((chunk) =>
      el(
        "a",
        {
          class: "marker",
          href: `#g-chunk-${chunk}`,
          "aria-label": `Cited span ${chunk + 1}`,
        },
        `[${chunk + 1}]`,
      ),
    ),
    // Shown for sighted readers; the hidden text above already says it to screen readers.
    claim.score === undefined
      ? null
      : el("span", { class: "score", "aria-hidden": "true" }, claim.score.toFixed(2)),
    state === "weak" ? el("span", { class: "flag", "aria-hidden": "true" }, "Unsupported") : null,
  );
}

// The whole candidate: each claim highlighted, and the text between claims kept as it is.
function withGaps(candidate, claims) {
  const nodes = [];
  let at = 0;
  claims.forEach((claim, n) => {
    const [start, end] = charRange(candidate, claim.startPos, claim.endPos);
    if (start > at) nodes.push(candidate.slice(at, start));
    nodes.push(claimNode(candidate.slice(start, end), claim, n));
    at = Math.max(at, end);
  });
  if (at < candidate.length) nodes.push(candidate.slice(at));
  return nodes;
}

function chunkNode(chunk, index, facts, citing) {
  const fact = facts[Number(chunk.source)];
  const whole = fact ? decoded(fact.factText) : chunk.chunkText;
  const at = whole.indexOf(chunk.chunkText);
  const body =
    at < 0
      ? [el("mark", {}, chunk.chunkText)]
      : [
          whole.slice(0, at),
          el("mark", {}, chunk.chunkText),
          whole.slice(at + chunk.chunkText.length),
        ];
  const by = fact?.attributes?.title || fact?.attributes?.author || "";
  return el(
    "li",
    { id: `g-chunk-${index}`, tabindex: "-1" },
    el(
      "p",
      { class: "meta" },
      `[${index + 1}] from fact ${Number(chunk.source) + 1}${by ? ` (${by})` : ""}`,
      citing.length ? ` · cited by claim ${citing.map((n) => n + 1).join(", ")}` : "",
    ),
    el("p", { class: "fact-span" }, ...body),
  );
}

async function check(event) {
  event.preventDefault();
  const candidate = $("g-candidate").value;
  const facts = [...$("g-facts").querySelectorAll(".fact")].map((item) => ({
    factText: item.querySelector(".fact-text").value,
    attributes: attributesOf(item.querySelector(".fact-attributes").value),
  }));
  const result = $("g-result");
  $("g-error").hidden = true;
  let response;
  try {
    response = await checkGrounding(candidate, facts, Number($("g-threshold").value));
  } catch (failure) {
    $("g-error").textContent = failure.code
      ? `${failure.message} (${failure.code})`
      : failure.message;
    $("g-error").hidden = false;
    return;
  }
  const claims = response.claims || [];
  const chunks = response.citedChunks || [];
  const support = response.supportScore ?? 0;
  result.replaceChildren(
    el(
      "p",
      { class: "support" },
      "Support score ",
      el("strong", { id: "g-support" }, support.toFixed(2)),
      " ",
      el("meter", { min: "0", max: "1", value: String(support), "aria-label": "Support score" }),
    ),
    el("h3", {}, "Claims"),
    el("p", { class: "answer" }, ...withGaps(candidate, claims)),
    el("h3", {}, "Cited fact spans"),
    chunks.length
      ? el(
          "ol",
          { class: "chunks" },
          ...chunks.map((chunk, n) =>
            chunkNode(
              chunk,
              n,
              facts,
              claims.flatMap((claim, c) => ((claim.citationIndices || []).includes(n) ? [c] : [])),
            ),
          ),
        )
      : el("p", {}, "No fact supports any claim."),
  );
  result.hidden = false;
}

export function setupGrounding() {
  $("g-form").addEventListener("submit", check);
  $("g-add-fact").addEventListener("click", () => addFact().querySelector("textarea").focus());
  $("g-threshold").addEventListener("input", (event) => {
    $("g-threshold-value").value = Number(event.target.value).toFixed(2);
  });
  $("g-example").addEventListener("click", () => {
    $("g-candidate").value = EXAMPLE.candidate;
    $("g-facts").replaceChildren();
    for (const fact of EXAMPLE.facts) addFact(fact.text, fact.attributes);
    $("g-candidate").focus();
  });
  $("g-result").addEventListener("click", (event) => {
    // Moves focus to the cited span too, so that keyboard and screen reader users follow.
    const link = event.target.closest("a.marker");
    if (link) document.querySelector(link.getAttribute("href"))?.focus();
  });
  addFact();
}
