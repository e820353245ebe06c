// While `groundwork serve` indexes its docs beside the service (its first start), says how far
// it is (GET /health), so that a refusal from the few documents in so far is not taken for
// what all of them say.

import { health } from "./api.js";
import { loadCollections } from "./scope.js";

const POLL_MS = 3000;

export async function watchIndexing() {
  const line = document.getElementById("indexing");
  let indexing = null;
  try {
    indexing = (await health()).indexing ?? null;
  } catch {
    // The service is restarting or gone: the next call the page makes will say so.
  }
  if (indexing) {
    line.textContent =
      `Indexing the docs into ${indexing.collection}: ${indexing.done} of ` +
      `${indexing.documents} documents in. Answers come from those so far.`;
    line.hidden = false;
    setTimeout(watchIndexing, POLL_MS);
  } else if (!line.hidden) {
    line.textContent = "";
    line.hidden = true;
    loadCollections(); // the source picker lists every document now
  }
}
