import test from 'ava';
import { checkContent, GMAIL_CLIP_BYTES } from '../../src/templates/check/check-content.js';
import { scanHtml } from '../../src/templates/check/html-scan.js';

function codes(html: string | null, text: string | null = 'plain text'): string[] {
  return checkContent({ html_body: html, text_body: text }).issues.map((i) => i.code);
}

const links: Array<[string, string[]]> = [
  ['<a href="https://posthorn.dev/reset">ok</a>', []],
  ['<a href="https://posthorn.dev/r?t={{token}}">ok</a>', []],
  ['<a href="{{reset_url}}">dynamic</a>', ['link_variable_scheme']],
  ['<a href="{{base_url}}/reset">dynamic start</a>', ['link_variable_scheme']],
  ['<a href="https://{{host}}/path">dynamic host</a>', []],
  ['<a href="mailto:help@posthorn.dev">mail</a> <a href="tel:+15551234">call</a>', []],
  ['<a href="#section">in-page</a> <a name="top"></a>', []],
  ['<a>no href</a>', ['link_empty']],
  ['<a href="">empty</a>', ['link_empty']],
  ['<a href="#">hash</a>', ['link_placeholder']],
  ['<a href="javascript:alert(1)">js</a>', ['link_unsafe_scheme']],
  ['<a href="JaVa&#x09;Script:alert(1)">hidden js</a>', ['link_unsafe_scheme']],
  ['<a href="java&#115;cript&colon;alert(1)">entity js</a>', ['link_unsafe_scheme']],
  ['<a href="data:text/html,hi">data</a>', ['link_unsafe_scheme']],
  ['<a href="http://posthorn.dev/">insecure</a>', ['link_insecure']],
  ['<a href="https://example.com/x">example</a>', ['link_example_domain']],
  ['<a href="https://shop.example.org/">example sub</a>', ['link_example_domain']],
  ['<a href="https://app.test/">test tld</a>', ['link_example_domain']],
  ['<a href="http://localhost:3000/">local</a>', ['link_insecure', 'link_example_domain']],
  ['<a href="https://203.0.113.9/login">ip</a>', ['link_ip_address']],
  ['<a href="/account">relative</a>', ['link_relative']],
  ['<a href="www.posthorn.dev">no scheme</a>', ['link_relative']],
  // biome-ignore lint/suspicious/noTemplateCurlyInString: the JavaScript template syntax is the case
  ['<a href="https://posthorn.dev/?u=${user}">js template</a>', ['link_unfilled_placeholder']],
  ['<a href="https://posthorn.dev/?u=*|EMAIL|*">mailchimp</a>', ['link_unfilled_placeholder']],
  ['<a href="https://posthorn.dev/?u=%EMAIL%">percent</a>', ['link_unfilled_placeholder']],
  ['<a href="https://posthorn.dev/%20ok%2F">encoded</a>', []],
  ['<a href="https://posthorn.dev/{id}">single braces</a>', ['link_unfilled_placeholder']],
  ['<a href="[UNSUBSCRIBE]">brackets</a>', ['link_unfilled_placeholder']],
  ['<a href="https://exa mple.com/">space</a>', ['link_malformed']],
];

for (const [html, expected] of links) {
  test(`links: ${html}`, (t) => {
    t.deepEqual(codes(html), expected);
  });
}

const images: Array<[string, string[]]> = [
  ['<img src="https://cdn.posthorn.dev/logo.png" alt="Posthorn">', []],
  ['<img src="https://cdn.posthorn.dev/spacer.gif" alt="">', []],
  ['<img src="https://cdn.posthorn.dev/logo.png">', ['image_missing_alt']],
  ['<img alt="x">', ['image_missing_src']],
  ['<img src="http://cdn.posthorn.dev/a.png" alt="a">', ['image_insecure']],
  ['<img src="logo.png" alt="a">', ['image_relative']],
  ['<img src="data:image/png;base64,iVBOR" alt="a">', ['image_data_uri']],
  ['<img src="https://example.com/a.png" alt="a">', ['image_example_domain']],
  ['<img src="{{logo_url}}" alt="a">', ['image_variable_scheme']],
];

for (const [html, expected] of images) {
  test(`images: ${html}`, (t) => {
    t.deepEqual(codes(html), expected);
  });
}

const compat: Array<[string, string[]]> = [
  ['<table><tr><td style="padding:8px">ok</td></tr></table>', []],
  ['<script>track()</script>', ['compat_script']],
  ['<div onclick="go()">x</div>', ['compat_event_handler']],
  ['<iframe src="https://posthorn.dev"></iframe>', ['compat_embedded_content']],
  ['<form action="https://posthorn.dev"><input name="q"></form>', ['compat_form']],
  ['<video src="https://posthorn.dev/v.mp4"></video>', ['compat_media']],
  ['<svg width="10"></svg>', ['compat_svg']],
  ['<link rel="stylesheet" href="https://posthorn.dev/a.css">', ['compat_external_stylesheet']],
  ['<style>@import url("https://posthorn.dev/a.css");</style>', ['compat_external_stylesheet']],
  ['<div style="position: absolute; top: 0">x</div>', ['compat_position']],
  ['<style>.a { display:flex } .b { display: inline-grid; }</style>', ['compat_flexbox_grid']],
  ['<style>/* display: flex */ .a { color: red }</style>', []],
  ['<!-- <script>ignored()</script> --><p>x</p>', []],
  ['<p title="a > b">x</p><p>no attribute tricks</p>', []],
];

for (const [html, expected] of compat) {
  test(`compatibility: ${html}`, (t) => {
    t.deepEqual([...new Set(codes(html))], expected);
  });
}

test('HTML over 102 KB is an error (Gmail clips it); the size is reported in bytes', (t) => {
  const big = `<p>${'é'.repeat(GMAIL_CLIP_BYTES / 2)}</p>`;
  const result = checkContent({ html_body: big, text_body: 'x' });
  t.is(result.html_bytes, Buffer.byteLength(big));
  t.deepEqual(
    result.issues.map((i) => [i.code, i.severity]),
    [['html_too_large', 'error']],
  );
  t.deepEqual(checkContent({ html_body: `<p>${'a'.repeat(1000)}</p>`, text_body: 'x' }).issues, []);
});

test('links and images are counted, text-body URLs included, and a missing text part is noted', (t) => {
  const result = checkContent({
    html_body:
      '<a href="https://a.posthorn.dev">a</a><img src="https://b.posthorn.dev/i.png" alt="i"><img src="https://b.posthorn.dev/j.png" alt="j">',
    text_body: 'See https://a.posthorn.dev, or http://c.posthorn.dev.',
  });
  t.is(result.link_count, 3);
  t.is(result.image_count, 2);
  t.deepEqual(
    result.issues.map((i) => [i.code, i.target]),
    [['link_insecure', 'http://c.posthorn.dev']],
  );
  t.deepEqual(
    checkContent({ html_body: '<p>x</p>', text_body: null }).issues.map((i) => [i.code, i.severity]),
    [['missing_text_part', 'info']],
  );
});

test('the same finding on the same target is reported once', (t) => {
  t.deepEqual(codes('<a href="#">a</a><a href="#">b</a>'), ['link_placeholder']);
});

test('the HTML scan decodes attribute entities and reads unquoted and bare attributes', (t) => {
  const scan = scanHtml("<A HREF=https://x.dev/?a=1&amp;b=2 download><img src='a.png' alt>");
  t.deepEqual(
    scan.tags.map((tag) => [tag.name, Object.fromEntries(tag.attrs)]),
    [
      ['a', { href: 'https://x.dev/?a=1&b=2', download: '' }],
      ['img', { src: 'a.png', alt: '' }],
    ],
  );
});
