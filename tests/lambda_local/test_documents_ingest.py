"""A document dropped in the documents bucket, ingested by the ingest function under the
emulator, is answered with its citation through the chat function's /v1/chat/completions."""

from __future__ import annotations

import openai

from tests.lambda_local.conftest import Stack, dump_logs
from tests.serverless.conftest import document_event

PILGRIMAGE = (
    "# Pilgrimage\n\nThe Walsingham pilgrimage route from King's Lynn is eighteen miles long "
    "and pilgrims walk its last mile barefoot.\n"
)


def test_given_a_document_put_in_the_bucket_when_ingested_then_chat_cites_it(
    stack: Stack,
) -> None:
    # The stack's default collection is "catechism": the folder that names it.
    key = "catechism/notes/walsingham pilgrimage.md"
    bucket = stack.aws.documents_bucket
    put = stack.s3.put_object(Bucket=bucket, Key=key, Body=PILGRIMAGE.encode())
    event = document_event(bucket, key, etag=put["ETag"].strip('"'))

    ingested = stack.invoke("IngestFunction", event)  # as the documents queue's poller does

    assert [d["outcome"] for d in ingested["documents"]] == ["added"], dump_logs(
        stack, "IngestFunction"
    )
    client = openai.OpenAI(base_url=f"{stack.url}/v1", api_key="unused", max_retries=0)
    completion = client.chat.completions.create(
        model="groundwork-1",
        messages=[{"role": "user", "content": "How long is the Walsingham pilgrimage route?"}],
    )
    assert "eighteen miles" in (completion.choices[0].message.content or ""), dump_logs(
        stack, "ChatFunction"
    )
    citations = (completion.model_extra or {}).get("citations") or []
    cited = [c for c in citations if "eighteen miles" in c["cited_text"]]
    assert cited, citations
    assert cited[0]["document_title"] == "Pilgrimage"
    assert cited[0]["source_url"].startswith("notes/walsingham pilgrimage.md")
