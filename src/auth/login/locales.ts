/**
 * The login-code mail in the eleven locales of spec §2.10, each a translation a native reader
 * would write. `{code}`, `{product}` and `{time}` are filled in by mail.ts.
 */
export const LOCALES = ['en', 'ru', 'es', 'fr', 'pt', 'zh', 'hi', 'bn', 'id', 'et', 'ar'] as const;
export type Locale = (typeof LOCALES)[number];

export interface LoginCodeText {
  readonly subject: string;
  readonly intro: string;
  readonly expiry: string;
  readonly ignore: string;
}

export const LOGIN_CODE_TEXT: Readonly<Record<Locale, LoginCodeText>> = {
  en: {
    subject: 'Your sign-in code: {code}',
    intro: 'Use this code to sign in to {product}:',
    expiry: 'It expires in 10 minutes, at {time} UTC.',
    ignore: 'If you did not request this code, you can ignore this email. Nobody can sign in without it.',
  },
  ru: {
    subject: 'Ваш код для входа: {code}',
    intro: 'Используйте этот код, чтобы войти в {product}:',
    expiry: 'Код действует 10 минут, до {time} UTC.',
    ignore:
      'Если вы не запрашивали этот код, просто проигнорируйте это письмо. Без него никто не сможет войти.',
  },
  es: {
    subject: 'Tu código de inicio de sesión: {code}',
    intro: 'Usa este código para iniciar sesión en {product}:',
    expiry: 'Caduca en 10 minutos, a las {time} UTC.',
    ignore: 'Si no solicitaste este código, puedes ignorar este correo. Nadie puede iniciar sesión sin él.',
  },
  fr: {
    subject: 'Votre code de connexion : {code}',
    intro: 'Utilisez ce code pour vous connecter à {product} :',
    expiry: 'Il expire dans 10 minutes, à {time} UTC.',
    ignore:
      "Si vous n'avez pas demandé ce code, vous pouvez ignorer cet e-mail. Personne ne peut se connecter sans lui.",
  },
  pt: {
    subject: 'Seu código de acesso: {code}',
    intro: 'Use este código para entrar no {product}:',
    expiry: 'Ele expira em 10 minutos, às {time} UTC.',
    ignore: 'Se você não pediu este código, pode ignorar este e-mail. Ninguém consegue entrar sem ele.',
  },
  zh: {
    subject: '您的登录验证码：{code}',
    intro: '请使用此验证码登录 {product}：',
    expiry: '验证码将在 10 分钟后（UTC 时间 {time}）失效。',
    ignore: '如果您没有申请此验证码，请忽略这封邮件。没有验证码，任何人都无法登录。',
  },
  hi: {
    subject: 'आपका साइन-इन कोड: {code}',
    intro: '{product} में साइन इन करने के लिए इस कोड का उपयोग करें:',
    expiry: 'यह कोड 10 मिनट में, {time} UTC पर, समाप्त हो जाएगा।',
    ignore: 'अगर आपने यह कोड नहीं माँगा था, तो इस ईमेल को अनदेखा कर दें। इस कोड के बिना कोई भी साइन इन नहीं कर सकता।',
  },
  bn: {
    subject: 'আপনার সাইন-ইন কোড: {code}',
    intro: '{product}-এ সাইন ইন করতে এই কোডটি ব্যবহার করুন:',
    expiry: 'কোডটির মেয়াদ ১০ মিনিটের মধ্যে, {time} UTC-তে শেষ হবে।',
    ignore: 'আপনি যদি এই কোডটি না চেয়ে থাকেন, তাহলে এই ইমেলটি উপেক্ষা করুন। এই কোড ছাড়া কেউ সাইন ইন করতে পারবে না।',
  },
  id: {
    subject: 'Kode masuk Anda: {code}',
    intro: 'Gunakan kode ini untuk masuk ke {product}:',
    expiry: 'Kode ini kedaluwarsa dalam 10 menit, pada pukul {time} UTC.',
    ignore:
      'Jika Anda tidak meminta kode ini, abaikan saja email ini. Tidak ada yang bisa masuk tanpa kode ini.',
  },
  et: {
    subject: 'Teie sisselogimiskood: {code}',
    intro: 'Kasutage seda koodi, et logida sisse teenusesse {product}:',
    expiry: 'Kood aegub 10 minuti pärast, kell {time} UTC.',
    ignore:
      'Kui te seda koodi ei küsinud, võite selle kirja tähelepanuta jätta. Ilma koodita ei saa keegi sisse logida.',
  },
  ar: {
    subject: 'رمز تسجيل الدخول الخاص بك: {code}',
    intro: 'استخدم هذا الرمز لتسجيل الدخول إلى {product}:',
    expiry: 'تنتهي صلاحية الرمز خلال 10 دقائق، في الساعة {time} بالتوقيت العالمي المنسق (UTC).',
    ignore: 'إذا لم تطلب هذا الرمز، يمكنك تجاهل هذه الرسالة. لا يمكن لأحد تسجيل الدخول بدونه.',
  },
};

export function fill(template: string, values: Readonly<Record<string, string>>): string {
  return template.replace(/\{(\w+)\}/g, (whole, name: string) => values[name] ?? whole);
}

export const RTL: ReadonlySet<string> = new Set(['ar']);

/** HTML-escapes text placed in the mail's HTML part. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
