/** The fields of a broadcast draft, shared by the new-broadcast form and the edit form of a draft. */
import { Field, Select, TextArea } from '../ui';

export interface DraftForm {
  audience_id: string;
  name: string;
  from: string;
  reply_to: string;
  subject: string;
  html: string;
  text: string;
}

export const EMPTY_DRAFT: DraftForm = {
  audience_id: '',
  name: '',
  from: '',
  reply_to: '',
  subject: '',
  html: '',
  text: '',
};

/** The form as a broadcast now reads. */
export function draftFormOf(b: {
  audience_id: string;
  name: string;
  from: string;
  reply_to: string[];
  subject: string | null;
  html: string | null;
  text: string | null;
}): DraftForm {
  return {
    audience_id: b.audience_id,
    name: b.name,
    from: b.from,
    reply_to: b.reply_to.join(', '),
    subject: b.subject ?? '',
    html: b.html ?? '',
    text: b.text ?? '',
  };
}

function replyTo(form: DraftForm): string[] {
  return form.reply_to
    .split(',')
    .map((a) => a.trim())
    .filter(Boolean);
}

/** The body of `POST /v1/broadcasts`: what is left empty is left out. */
export function createBody(form: DraftForm, audienceId: string | undefined) {
  const to = replyTo(form);
  return {
    audience_id: form.audience_id || audienceId,
    ...(form.name.trim() ? { name: form.name.trim() } : {}),
    from: form.from.trim(),
    ...(to.length > 0 ? { reply_to: to } : {}),
    subject: form.subject,
    ...(form.html ? { html: form.html } : {}),
    ...(form.text ? { text: form.text } : {}),
  };
}

/**
 * The body of `PATCH /v1/broadcasts/{id}`: every field as the form holds it, an emptied optional
 * one as null (so clearing it clears it); the content only when the draft is not a template's.
 */
export function updateBody(form: DraftForm, withContent: boolean) {
  const to = replyTo(form);
  return {
    audience_id: form.audience_id,
    ...(form.name.trim() ? { name: form.name.trim() } : {}),
    from: form.from.trim(),
    reply_to: to.length > 0 ? to : null,
    ...(withContent ? { subject: form.subject, html: form.html || null, text: form.text || null } : {}),
  };
}

export function DraftFields({
  form,
  onChange,
  audiences,
  content = true,
}: {
  form: DraftForm;
  onChange: (form: DraftForm) => void;
  audiences: { id: string; name: string }[];
  content?: boolean;
}) {
  const set = (field: keyof DraftForm) => (e: { currentTarget: { value: string } }) =>
    onChange({ ...form, [field]: e.currentTarget.value });
  return (
    <>
      <Select
        label="Audience"
        value={form.audience_id || audiences[0]?.id}
        options={audiences.map((a): [string, string] => [a.id, a.name])}
        onChange={set('audience_id')}
      />
      <Field
        label="Name"
        placeholder="November newsletter"
        value={form.name}
        onInput={set('name')}
        hint="For you; recipients never see it. The subject when left empty."
      />
      <Field
        label="From"
        required
        placeholder="Acme <news@acme.com>"
        value={form.from}
        onInput={set('from')}
        hint="Its domain must be verified."
      />
      <Field
        label="Reply-To (optional)"
        placeholder="support@acme.com"
        value={form.reply_to}
        onInput={set('reply_to')}
        hint="One address, or several separated by commas."
      />
      {content && (
        <>
          <Field label="Subject" required value={form.subject} onInput={set('subject')} />
          <TextArea label="HTML" rows={8} value={form.html} onInput={set('html')} />
          <TextArea label="Text (optional)" rows={4} value={form.text} onInput={set('text')} />
        </>
      )}
    </>
  );
}
