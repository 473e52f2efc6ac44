import http from 'node:http';
import test from 'ava';
import { startCore } from '../helpers/http-core.js';

interface Answer {
  readonly status: number;
  readonly headers: http.IncomingHttpHeaders;
  readonly text: string;
}

/** POSTs a body in chunks with Transfer-Encoding: chunked (no Content-Length). */
function postChunked(url: string, key: string, chunks: readonly string[]): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = http.request(`${url}/v1/things`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    });
    let answered = false;
    req.on('response', (res) => {
      answered = true;
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => {
        text += d;
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text }));
    });
    // The server may close while the rest is still being sent; only a missing answer is a failure.
    req.on('error', (error) => {
      if (!answered) reject(error);
    });
    for (const chunk of chunks) req.write(chunk);
    req.end();
  });
}

test('a chunked body over the limit is a JSON 413 with X-Request-ID and an access-log line', async (t) => {
  const { ph, url, logs } = await startCore(t, { maxBodyBytes: 1024, accessLog: true });
  const chunks = ['{"name": "', ...Array.from({ length: 8 }, () => 'x'.repeat(512)), '"}'];
  const res = await postChunked(url, ph.owner.apiKey, chunks);
  t.is(res.status, 413);
  t.regex(res.headers['content-type'] ?? '', /application\/json/);
  t.deepEqual(JSON.parse(res.text), { error: 'Request body is larger than the limit of 1024 bytes.' });
  t.regex(String(res.headers['x-request-id']), /^req_/);
  t.is(res.headers.connection, 'close');
  const line = logs.find((l) => l.msg === 'request' && l.request_id === res.headers['x-request-id']);
  t.like(line, { method: 'POST', route: '/v1/things', status: 413, ip: '127.0.0.1' });

  // The server is fine afterwards, and a chunked body within the limit is read whole.
  const small = await postChunked(url, ph.owner.apiKey, ['{"name": ', '"ok"}']);
  t.is(small.status, 201);
  t.deepEqual(JSON.parse(small.text), { name: 'ok' });
});
