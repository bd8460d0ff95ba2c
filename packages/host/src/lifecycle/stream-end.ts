/**
 * A streamed answer's end, for what lasts as long as the stream does (a request's log line, an MCP
 * session that is listening, a subscription): the stream as it is, and a call once it has ended,
 * whether its last chunk was read, it failed, or the client went away.
 */
export function onStreamEnd(body: ReadableStream<Uint8Array>, ended: () => void): ReadableStream<Uint8Array> {
  const reader = body.getReader();
  let done = false;
  const end = () => {
    if (done) return;
    done = true;
    ended();
  };
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const chunk = await reader.read();
        if (!chunk.done) return controller.enqueue(chunk.value);
        controller.close();
      } catch (err) {
        controller.error(err);
      }
      end();
    },
    async cancel(reason) {
      end();
      await reader.cancel(reason);
    },
  });
}
