// An answer with its evidence: inline markers that open the cited passage, and each sentence
// tinted by how well the passages it cites support it.

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
    found.push({ text: text.slice(start, match.index), markers });
    start = match.index + match[0].length;
  }
  if (start < text.length) found.push({ text: text.slice(start), markers: [] });
  return found.filter((sentence) => sentence.text.trim() || sentence.markers.length);
}

export function tintOf(score) {
  if (score >= 0.8) return "strong";
  if (score >= 0.5) return "partial";
  return "weak";
}

const TINT_WORDS = { strong: "well supported", partial: "partly supported", weak: "not supported" };

// Renders `text` into `container` and returns a promise of the sentences' scores.
export function renderAnswer(container, text, citations) {
  const byMarker = new Map(citations.map((c) => [c.document_index + 1, c]));
  const panel = el("aside", {
    class: "passage",
    id: `passage-${++nextId}`,
    tabindex: "-1",
    "aria-label": "Cited passage",
    hidden: true,
  });
  const paragraph = el("p", { class: "answer" });
  const parts = sentences(text).map((sentence) => {
    const span = el("span", { class: "sentence" }, sentence.text);
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
    const facts = [
      ["Title", citation.document_title],
      ["Author", citation.document_author],
      ["Year", citation.document_year],
      ["Reference", citation.document_reference],
    ].filter(([, value]) => value);
    panel.replaceChildren(
      el("h3", {}, `[${number}] ${citation.cited_text_heading || citation.document_title || ""}`),
      el("blockquote", {}, citation.cited_text),
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
