// An answer with its evidence: inline markers that open the cited passage (its supporting
// sentence highlighted, its section and page), each sentence tinted by how well the passages
// it cites support it, and the stretch the service says they support underlined
// (`grounding_supports`, whose offsets count UTF-8 bytes).

import { checkGrounding } from "./api.js";

let nextId = 0;

export function el(tag, attributes = {}, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (value === null || value === undefined || value === false) continue;
    if (name === "class") node.className = value;
    else if (name.startsWith("on")) node.addEventListener(name.slice(2), value);
    else node.setAttribute(name, value === true ? "" : value);
  }
  node.append(...children.filter((child) => child !== null && child !== undefined));
  return node;
}

// A source's URL as a link the page may follow: http(s) or relative, resolved as the browser
// would; null for anything else (`javascript:`, `data:`…), which is shown as text only.
export function safeHref(url) {
  if (typeof url !== "string") return null;
  try {
    const resolved = new URL(url, document.baseURI);
    return resolved.protocol === "http:" || resolved.protocol === "https:" ? resolved.href : null;
  } catch {
    return null;
  }
}

// The answer cut after each run of markers: "A. [1] B. [2][3] C." gives three sentences, the
// last one citing nothing. Markers are one-based; citations' document_index is zero-based.
export function sentences(text) {
  const found = [];
  const markerRun = /(?:\s*\[\d+\])+/g;
  let start = 0;
  for (const match of text.matchAll(markerRun)) {
    const markers = [...match[0].matchAll(/\[(\d+)\]/g)].map((m) => Number(m[1]));
    found.push({ text: text.slice(start, match.index), start, markers });
    start = match.index + match[0].length;
  }
  if (start < text.length) found.push({ text: text.slice(start), start, markers: [] });
  return found.filter((sentence) => sentence.text.trim() || sentence.markers.length);
}

// The supports' segments as string positions: their offsets count bytes of UTF-8, which
// JavaScript strings do not.
export function supportedRanges(text, supports) {
  const bytes = new TextEncoder().encode(text);
  const decoder = new TextDecoder();
  return (supports || [])
    .map((support) => {
      const { start_index: from, end_index: to } = support.segment;
      const start = decoder.decode(bytes.slice(0, from)).length;
      return {
        start,
        end: start + decoder.decode(bytes.slice(from, to)).length,
        citations: support.citation_indices,
        scores: support.confidence_scores,
      };
    })
    .filter((range) => range.end > range.start);
}

// A sentence's text, with what the supports cover underlined.
function underlined(sentence, ranges) {
  const pieces = [];
  const end = sentence.start + sentence.text.length;
  let at = sentence.start;
  for (const range of ranges) {
    const from = Math.max(range.start, at);
    const to = Math.min(range.end, end);
    if (to <= from) continue;
    if (from > at) pieces.push(sentence.text.slice(at - sentence.start, from - sentence.start));
    const by = range.citations
      .map((index, n) => `[${index + 1}] ${(range.scores[n] ?? 0).toFixed(2)}`)
      .join(", ");
    pieces.push(
      el(
        "span",
        {
          class: "supported",
          title: `Supported by ${by}`,
          "data-citations": range.citations.map((index) => index + 1).join(" "),
        },
        sentence.text.slice(from - sentence.start, to - sentence.start),
      ),
    );
    at = to;
  }
  if (at < end) pieces.push(sentence.text.slice(at - sentence.start));
  return pieces;
}

export function tintOf(score) {
  if (score >= 0.8) return "strong";
  if (score >= 0.5) return "partial";
  return "weak";
}

const TINT_WORDS = { strong: "well supported", partial: "partly supported", weak: "not supported" };

// Renders `text` into `container` and returns a promise of the sentences' scores.
export function renderAnswer(container, text, citations, supports = []) {
  const byMarker = new Map(citations.map((c) => [c.document_index + 1, c]));
  const ranges = supportedRanges(text, supports);
  const panel = el("aside", {
    class: "passage",
    id: `passage-${++nextId}`,
    tabindex: "-1",
    "aria-label": "Cited passage",
    hidden: true,
  });
  const paragraph = el("p", { class: "answer" });
  const parts = sentences(text).map((sentence) => {
    const span = el("span", { class: "sentence" }, ...underlined(sentence, ranges));
    paragraph.append(span);
    for (const number of sentence.markers) {
      const citation = byMarker.get(number);
      const label = citation
        ? `Source ${number}: ${citation.document_title || citation.source_url}`
        : `Source ${number}`;
      paragraph.append(
        " ",
        el(
          "button",
          {
            type: "button",
            class: "marker",
            "aria-label": label,
            "aria-controls": panel.id,
            "aria-expanded": "false",
            onclick: (event) => openPassage(panel, citation, number, event.currentTarget),
          },
          `[${number}]`,
        ),
      );
    }
    return { sentence, span };
  });
  container.replaceChildren(paragraph, panel);
  return tint(parts, byMarker);
}

async function tint(parts, byMarker) {
  const checks = parts.map(async ({ sentence, span }) => {
    const cited = sentence.markers.map((n) => byMarker.get(n)).filter(Boolean);
    if (!cited.length || !sentence.text.trim()) return null;
    const facts = cited.map((c) => ({
      factText: c.cited_text,
      attributes: Object.fromEntries(
        [
          ["title", c.document_title],
          ["author", c.document_author],
          ["url", c.source_url],
        ].filter(([, value]) => value),
      ),
    }));
    let score;
    try {
      score = (await checkGrounding(sentence.text.trim(), facts, 0.6)).supportScore ?? 0;
    } catch {
      return null; // Left untinted: the answer is still readable without its tint.
    }
    const tinted = tintOf(score);
    span.classList.add(`tint-${tinted}`);
    span.dataset.score = score.toFixed(2);
    span.title = `Support ${score.toFixed(2)}: ${TINT_WORDS[tinted]}`;
    span.append(el("span", { class: "sr-only" }, ` (${TINT_WORDS[tinted]}, ${score.toFixed(2)})`));
    return score;
  });
  return Promise.all(checks);
}

function sourceLink(url) {
  const href = safeHref(url);
  return href ? el("a", { href, rel: "noopener" }, url) : el("span", { class: "url" }, url);
}

// The cited text with its supporting sentence marked; all of it text, never markup.
function quoted(citation) {
  const text = citation.cited_text;
  const supporting = citation.supporting_text;
  const at = supporting ? text.indexOf(supporting) : -1;
  if (at < 0) return el("blockquote", {}, text);
  return el(
    "blockquote",
    {},
    text.slice(0, at),
    el("mark", { class: "supporting" }, supporting),
    text.slice(at + supporting.length),
  );
}

// "Page 2" (of a PDF), a link to that page when the document has an address.
function pageOf(citation) {
  const location = citation.source_location;
  if (!location?.page) return null;
  const last = location.page_end && location.page_end !== location.page ? location.page_end : null;
  const label = last ? `Pages ${location.page}–${last}` : `Page ${location.page}`;
  const href = safeHref(citation.source_url);
  if (!href) return el("span", { class: "page" }, label);
  const url = new URL(href);
  url.hash = `page=${location.page}`;
  return el("a", { class: "page", href: url.href, rel: "noopener" }, label);
}

function openPassage(panel, citation, number, opener) {
  for (const marker of panel.parentElement.querySelectorAll(".marker")) {
    marker.setAttribute("aria-expanded", String(marker === opener));
  }
  const close = () => {
    panel.hidden = true;
    opener.setAttribute("aria-expanded", "false");
    opener.focus();
  };
  if (!citation) {
    panel.replaceChildren(el("p", {}, `No passage is given for [${number}].`));
  } else {
    const section = citation.source_location?.section;
    const page = pageOf(citation);
    const facts = [
      ["Title", citation.document_title],
      ["Section", section?.length ? section.join(" › ") : null],
      ["Page", page],
      ["Author", citation.document_author],
      ["Year", citation.document_year],
      ["Reference", citation.document_reference],
    ].filter(([, value]) => value);
    panel.replaceChildren(
      el("h3", {}, `[${number}] ${citation.cited_text_heading || citation.document_title || ""}`),
      quoted(citation),
      el("dl", {}, ...facts.flatMap(([term, value]) => [el("dt", {}, term), el("dd", {}, value)])),
      el("p", {}, sourceLink(citation.source_url)),
    );
  }
  panel.append(el("button", { type: "button", class: "close", onclick: close }, "Close"));
  panel.onkeydown = (event) => {
    if (event.key === "Escape") close();
  };
  panel.hidden = false;
  panel.focus();
}
