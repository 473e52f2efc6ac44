import { createRequire } from 'node:module';
import test from 'ava';
import { relaxedBodyHash } from '../../../src/delivery/compose/relaxed-body.js';

// mailauth's own streaming hasher is the reference.
const require = createRequire(import.meta.url);
const { dkimBody } = require('mailauth/lib/dkim/body/index.js') as {
  dkimBody: (
    canon: string,
    algo: string,
    max: false,
  ) => { update(chunk: Buffer): void; digest(enc: 'base64'): string };
};

function reference(body: string): string {
  const hasher = dkimBody('relaxed', 'sha256', false);
  hasher.update(Buffer.from(body, 'latin1'));
  return hasher.digest('base64');
}

const bodies: [string, string][] = [
  ['an empty body', ''],
  ['a lone CRLF', '\r\n'],
  ['only empty lines', '\r\n\r\n\r\n'],
  ['plain lines', 'Hello\r\nWorld\r\n'],
  ['no final CRLF', 'Hello\r\nWorld'],
  ['trailing empty lines', 'Hello\r\n\r\n\r\n'],
  ['runs of spaces and tabs', 'a  b\t\tc \t d\r\n'],
  ['whitespace at line ends', 'a  \r\nb\t\r\n \r\n'],
  ['whitespace at the very end', 'a\r\nb  '],
  ['an empty line in the middle', 'a\r\n\r\nb\r\n'],
  ['leading whitespace', '  indented\r\n\tline\r\n'],
  ['quoted-printable', 'caf=C3=A9 =\r\nsoft break\r\n'],
  ['8-bit bytes', 'caf\xc3\xa9  \xe2\x80\x94\r\n'],
  ['a dot line', '.\r\n..\r\n'],
];

for (const [name, body] of bodies) {
  test(`the relaxed body hash of ${name} matches mailauth's`, (t) => {
    t.is(relaxedBodyHash(Buffer.from(body, 'latin1')), reference(body));
  });
}

test('a body with a bare LF is left to mailauth', (t) => {
  t.is(relaxedBodyHash(Buffer.from('a\nb\r\n')), null);
});
