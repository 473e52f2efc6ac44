/** The invitation mail in the eleven locales of spec §2.10; `{org}`, `{role}`, `{url}`, `{email}`, `{product}` filled in. */
import type { Locale } from '../auth/login/locales.js';

export interface InvitationText {
  readonly subject: string;
  readonly added: string;
  readonly signIn: string;
}

export const INVITATION_TEXT: Readonly<Record<Locale, InvitationText>> = {
  en: {
    subject: 'You have been added to {org} on {product}',
    added: 'You are now a member of the organization {org} on {product}, with the role {role}.',
    signIn: 'Sign in at {url} with {email}: we will email you a sign-in code.',
  },
  ru: {
    subject: 'Вас добавили в {org} в {product}',
    added: 'Теперь вы участник организации {org} в {product} с ролью {role}.',
    signIn: 'Войдите на {url} с адресом {email}: мы пришлём вам код для входа.',
  },
  es: {
    subject: 'Te han añadido a {org} en {product}',
    added: 'Ahora eres miembro de la organización {org} en {product}, con el rol {role}.',
    signIn: 'Inicia sesión en {url} con {email}: te enviaremos un código de inicio de sesión.',
  },
  fr: {
    subject: 'Vous avez été ajouté à {org} sur {product}',
    added: "Vous êtes désormais membre de l'organisation {org} sur {product}, avec le rôle {role}.",
    signIn: 'Connectez-vous sur {url} avec {email} : nous vous enverrons un code de connexion par e-mail.',
  },
  pt: {
    subject: 'Você foi adicionado a {org} no {product}',
    added: 'Agora você é membro da organização {org} no {product}, com a função {role}.',
    signIn: 'Entre em {url} com {email}: enviaremos um código de acesso para o seu e-mail.',
  },
  zh: {
    subject: '您已被添加到 {product} 上的 {org}',
    added: '您现在是 {product} 上组织 {org} 的成员，角色为 {role}。',
    signIn: '请使用 {email} 登录 {url}：我们会通过邮件向您发送登录验证码。',
  },
  hi: {
    subject: 'आपको {product} पर {org} में जोड़ा गया है',
    added: 'अब आप {product} पर संगठन {org} के सदस्य हैं, और आपकी भूमिका {role} है।',
    signIn: '{url} पर {email} से साइन इन करें: हम आपको ईमेल से एक साइन-इन कोड भेजेंगे।',
  },
  bn: {
    subject: 'আপনাকে {product}-এ {org}-এ যুক্ত করা হয়েছে',
    added: 'আপনি এখন {product}-এ {org} সংস্থার সদস্য, আপনার ভূমিকা {role}।',
    signIn: '{url}-এ {email} দিয়ে সাইন ইন করুন: আমরা আপনাকে ইমেলে একটি সাইন-ইন কোড পাঠাব।',
  },
  id: {
    subject: 'Anda telah ditambahkan ke {org} di {product}',
    added: 'Anda sekarang anggota organisasi {org} di {product}, dengan peran {role}.',
    signIn: 'Masuk di {url} dengan {email}: kami akan mengirimkan kode masuk ke email Anda.',
  },
  et: {
    subject: 'Teid lisati organisatsiooni {org} teenuses {product}',
    added: 'Olete nüüd organisatsiooni {org} liige teenuses {product}, rolliga {role}.',
    signIn:
      'Logige sisse aadressil {url} e-posti aadressiga {email}: saadame teile sisselogimiskoodi e-kirjaga.',
  },
  ar: {
    subject: 'تمت إضافتك إلى {org} على {product}',
    added: 'أنت الآن عضو في المؤسسة {org} على {product}، بدور {role}.',
    signIn: 'سجّل الدخول في {url} باستخدام {email}: سنرسل إليك رمز تسجيل الدخول عبر البريد الإلكتروني.',
  },
};
