/**
 * The security notice mails in the eleven locales of spec §2.10. `{product}`, `{email}`, `{time}`,
 * `{client}` and `{network}` are filled in by notice.ts. No notice ever carries a secret.
 */
import type { Locale } from '../login/locales.js';

export type NoticeKind =
  | 'password_set'
  | 'password_changed'
  | 'totp_enabled'
  | 'totp_disabled'
  | 'recovery_codes';

export interface NoticeText {
  readonly subject: Readonly<Record<NoticeKind, string>>;
  readonly what: Readonly<Record<NoticeKind, string>>;
  readonly from: string;
  readonly othersEnded: string;
  readonly notYou: string;
}

export const NOTICE_TEXT: Readonly<Record<Locale, NoticeText>> = {
  en: {
    subject: {
      password_set: 'A password was set on your {product} account',
      password_changed: 'Your {product} password was changed',
      totp_enabled: 'Two-factor authentication is on for your {product} account',
      totp_disabled: 'Two-factor authentication was turned off on your {product} account',
      recovery_codes: 'New recovery codes for your {product} account',
    },
    what: {
      password_set: 'A password was set on your {product} account {email} on {time} UTC.',
      password_changed: 'The password of your {product} account {email} was changed on {time} UTC.',
      totp_enabled:
        'Two-factor authentication was turned on for your {product} account {email} on {time} UTC.',
      totp_disabled:
        'Two-factor authentication was turned off on your {product} account {email} on {time} UTC.',
      recovery_codes:
        'New two-factor recovery codes were made for your {product} account {email} on {time} UTC; the earlier ones no longer work.',
    },
    from: 'The change was made from {client} ({network}).',
    othersEnded: 'Your other sessions were signed out.',
    notYou:
      'If this was not you, sign in with a code sent to this address, set a new password and end the sessions you do not recognise on your Account page, or ask an owner of your organization for help.',
  },
  ru: {
    subject: {
      password_set: 'Для вашей учётной записи {product} задан пароль',
      password_changed: 'Пароль вашей учётной записи {product} изменён',
      totp_enabled: 'Для вашей учётной записи {product} включена двухфакторная аутентификация',
      totp_disabled: 'Для вашей учётной записи {product} отключена двухфакторная аутентификация',
      recovery_codes: 'Новые резервные коды для вашей учётной записи {product}',
    },
    what: {
      password_set: 'Для учётной записи {product} {email} задан пароль: {time} UTC.',
      password_changed: 'Пароль учётной записи {product} {email} изменён: {time} UTC.',
      totp_enabled: 'Для учётной записи {product} {email} включена двухфакторная аутентификация: {time} UTC.',
      totp_disabled:
        'Для учётной записи {product} {email} отключена двухфакторная аутентификация: {time} UTC.',
      recovery_codes:
        'Для учётной записи {product} {email} созданы новые резервные коды двухфакторной аутентификации: {time} UTC. Прежние коды больше не действуют.',
    },
    from: 'Изменение сделано с устройства {client} ({network}).',
    othersEnded: 'Все остальные ваши сеансы завершены.',
    notYou:
      'Если это были не вы, войдите с кодом, отправленным на этот адрес, задайте новый пароль и завершите незнакомые сеансы на странице «Учётная запись» — или обратитесь к владельцу вашей организации.',
  },
  es: {
    subject: {
      password_set: 'Se ha establecido una contraseña en tu cuenta de {product}',
      password_changed: 'Se ha cambiado la contraseña de tu cuenta de {product}',
      totp_enabled: 'La autenticación en dos pasos está activada en tu cuenta de {product}',
      totp_disabled: 'Se ha desactivado la autenticación en dos pasos de tu cuenta de {product}',
      recovery_codes: 'Nuevos códigos de recuperación para tu cuenta de {product}',
    },
    what: {
      password_set: 'Se estableció una contraseña en tu cuenta de {product} {email} el {time} UTC.',
      password_changed: 'Se cambió la contraseña de tu cuenta de {product} {email} el {time} UTC.',
      totp_enabled:
        'Se activó la autenticación en dos pasos en tu cuenta de {product} {email} el {time} UTC.',
      totp_disabled:
        'Se desactivó la autenticación en dos pasos de tu cuenta de {product} {email} el {time} UTC.',
      recovery_codes:
        'Se crearon nuevos códigos de recuperación de la autenticación en dos pasos para tu cuenta de {product} {email} el {time} UTC; los anteriores ya no funcionan.',
    },
    from: 'El cambio se hizo desde {client} ({network}).',
    othersEnded: 'Se cerraron tus demás sesiones.',
    notYou:
      'Si no fuiste tú, inicia sesión con un código enviado a esta dirección, establece una contraseña nueva y cierra las sesiones que no reconozcas en la página Cuenta, o pide ayuda a un propietario de tu organización.',
  },
  fr: {
    subject: {
      password_set: 'Un mot de passe a été défini sur votre compte {product}',
      password_changed: 'Le mot de passe de votre compte {product} a été modifié',
      totp_enabled: 'La double authentification est activée sur votre compte {product}',
      totp_disabled: 'La double authentification a été désactivée sur votre compte {product}',
      recovery_codes: 'Nouveaux codes de récupération pour votre compte {product}',
    },
    what: {
      password_set: 'Un mot de passe a été défini sur votre compte {product} {email} le {time} UTC.',
      password_changed: 'Le mot de passe de votre compte {product} {email} a été modifié le {time} UTC.',
      totp_enabled:
        'La double authentification a été activée sur votre compte {product} {email} le {time} UTC.',
      totp_disabled:
        'La double authentification a été désactivée sur votre compte {product} {email} le {time} UTC.',
      recovery_codes:
        'De nouveaux codes de récupération de la double authentification ont été créés pour votre compte {product} {email} le {time} UTC ; les précédents ne fonctionnent plus.',
    },
    from: 'La modification a été faite depuis {client} ({network}).',
    othersEnded: 'Vos autres sessions ont été fermées.',
    notYou:
      "Si ce n'était pas vous, connectez-vous avec un code envoyé à cette adresse, définissez un nouveau mot de passe et fermez les sessions que vous ne reconnaissez pas sur la page Compte, ou demandez de l'aide à un propriétaire de votre organisation.",
  },
  pt: {
    subject: {
      password_set: 'Uma senha foi definida na sua conta do {product}',
      password_changed: 'A senha da sua conta do {product} foi alterada',
      totp_enabled: 'A autenticação em dois fatores está ativada na sua conta do {product}',
      totp_disabled: 'A autenticação em dois fatores foi desativada na sua conta do {product}',
      recovery_codes: 'Novos códigos de recuperação para sua conta do {product}',
    },
    what: {
      password_set: 'Uma senha foi definida na sua conta do {product} {email} em {time} UTC.',
      password_changed: 'A senha da sua conta do {product} {email} foi alterada em {time} UTC.',
      totp_enabled:
        'A autenticação em dois fatores foi ativada na sua conta do {product} {email} em {time} UTC.',
      totp_disabled:
        'A autenticação em dois fatores foi desativada na sua conta do {product} {email} em {time} UTC.',
      recovery_codes:
        'Novos códigos de recuperação da autenticação em dois fatores foram criados para sua conta do {product} {email} em {time} UTC; os anteriores não funcionam mais.',
    },
    from: 'A alteração foi feita a partir de {client} ({network}).',
    othersEnded: 'Suas outras sessões foram encerradas.',
    notYou:
      'Se não foi você, entre com um código enviado para este endereço, defina uma nova senha e encerre as sessões que você não reconhece na página Conta, ou peça ajuda a um proprietário da sua organização.',
  },
  zh: {
    subject: {
      password_set: '您的 {product} 账户已设置密码',
      password_changed: '您的 {product} 账户密码已更改',
      totp_enabled: '您的 {product} 账户已开启两步验证',
      totp_disabled: '您的 {product} 账户已关闭两步验证',
      recovery_codes: '您的 {product} 账户已生成新的恢复码',
    },
    what: {
      password_set: '您的 {product} 账户 {email} 于 UTC 时间 {time} 设置了密码。',
      password_changed: '您的 {product} 账户 {email} 于 UTC 时间 {time} 更改了密码。',
      totp_enabled: '您的 {product} 账户 {email} 于 UTC 时间 {time} 开启了两步验证。',
      totp_disabled: '您的 {product} 账户 {email} 于 UTC 时间 {time} 关闭了两步验证。',
      recovery_codes:
        '您的 {product} 账户 {email} 于 UTC 时间 {time} 生成了新的两步验证恢复码，之前的恢复码已失效。',
    },
    from: '此更改来自 {client}（{network}）。',
    othersEnded: '您的其他会话已全部退出。',
    notYou:
      '如果这不是您本人操作，请使用发送到此地址的验证码登录，设置新密码，并在“账户”页面结束您不认识的会话；或联系您所在组织的所有者寻求帮助。',
  },
  hi: {
    subject: {
      password_set: 'आपके {product} खाते पर पासवर्ड सेट किया गया',
      password_changed: 'आपके {product} खाते का पासवर्ड बदला गया',
      totp_enabled: 'आपके {product} खाते पर टू-फ़ैक्टर ऑथेंटिकेशन चालू है',
      totp_disabled: 'आपके {product} खाते पर टू-फ़ैक्टर ऑथेंटिकेशन बंद किया गया',
      recovery_codes: 'आपके {product} खाते के लिए नए रिकवरी कोड',
    },
    what: {
      password_set: 'आपके {product} खाते {email} पर {time} UTC को पासवर्ड सेट किया गया।',
      password_changed: 'आपके {product} खाते {email} का पासवर्ड {time} UTC को बदला गया।',
      totp_enabled: 'आपके {product} खाते {email} पर {time} UTC को टू-फ़ैक्टर ऑथेंटिकेशन चालू किया गया।',
      totp_disabled: 'आपके {product} खाते {email} पर {time} UTC को टू-फ़ैक्टर ऑथेंटिकेशन बंद किया गया।',
      recovery_codes:
        'आपके {product} खाते {email} के लिए {time} UTC को नए टू-फ़ैक्टर रिकवरी कोड बनाए गए; पुराने कोड अब काम नहीं करेंगे।',
    },
    from: 'यह बदलाव {client} ({network}) से किया गया।',
    othersEnded: 'आपके बाकी सभी सेशन साइन आउट कर दिए गए।',
    notYou:
      'अगर यह आपने नहीं किया, तो इस पते पर भेजे गए कोड से साइन इन करें, नया पासवर्ड सेट करें और खाता पेज पर उन सेशन को खत्म करें जिन्हें आप नहीं पहचानते, या अपने संगठन के किसी मालिक से मदद लें।',
  },
  bn: {
    subject: {
      password_set: 'আপনার {product} অ্যাকাউন্টে পাসওয়ার্ড সেট করা হয়েছে',
      password_changed: 'আপনার {product} অ্যাকাউন্টের পাসওয়ার্ড পরিবর্তন করা হয়েছে',
      totp_enabled: 'আপনার {product} অ্যাকাউন্টে টু-ফ্যাক্টর অথেনটিকেশন চালু আছে',
      totp_disabled: 'আপনার {product} অ্যাকাউন্টে টু-ফ্যাক্টর অথেনটিকেশন বন্ধ করা হয়েছে',
      recovery_codes: 'আপনার {product} অ্যাকাউন্টের জন্য নতুন রিকভারি কোড',
    },
    what: {
      password_set: 'আপনার {product} অ্যাকাউন্ট {email}-এ {time} UTC-তে পাসওয়ার্ড সেট করা হয়েছে।',
      password_changed: 'আপনার {product} অ্যাকাউন্ট {email}-এর পাসওয়ার্ড {time} UTC-তে পরিবর্তন করা হয়েছে।',
      totp_enabled: 'আপনার {product} অ্যাকাউন্ট {email}-এ {time} UTC-তে টু-ফ্যাক্টর অথেনটিকেশন চালু করা হয়েছে।',
      totp_disabled: 'আপনার {product} অ্যাকাউন্ট {email}-এ {time} UTC-তে টু-ফ্যাক্টর অথেনটিকেশন বন্ধ করা হয়েছে।',
      recovery_codes:
        'আপনার {product} অ্যাকাউন্ট {email}-এর জন্য {time} UTC-তে নতুন টু-ফ্যাক্টর রিকভারি কোড তৈরি করা হয়েছে; আগের কোডগুলো আর কাজ করবে না।',
    },
    from: 'পরিবর্তনটি {client} ({network}) থেকে করা হয়েছে।',
    othersEnded: 'আপনার অন্য সব সেশন থেকে সাইন আউট করা হয়েছে।',
    notYou:
      'এটি যদি আপনি না করে থাকেন, তাহলে এই ঠিকানায় পাঠানো কোড দিয়ে সাইন ইন করুন, নতুন পাসওয়ার্ড সেট করুন এবং অ্যাকাউন্ট পেজে যেসব সেশন চিনতে পারছেন না সেগুলো বন্ধ করুন, অথবা আপনার প্রতিষ্ঠানের একজন মালিকের সাহায্য নিন।',
  },
  id: {
    subject: {
      password_set: 'Kata sandi telah diatur di akun {product} Anda',
      password_changed: 'Kata sandi akun {product} Anda telah diubah',
      totp_enabled: 'Autentikasi dua faktor aktif di akun {product} Anda',
      totp_disabled: 'Autentikasi dua faktor dinonaktifkan di akun {product} Anda',
      recovery_codes: 'Kode pemulihan baru untuk akun {product} Anda',
    },
    what: {
      password_set: 'Kata sandi diatur di akun {product} Anda {email} pada {time} UTC.',
      password_changed: 'Kata sandi akun {product} Anda {email} diubah pada {time} UTC.',
      totp_enabled: 'Autentikasi dua faktor diaktifkan di akun {product} Anda {email} pada {time} UTC.',
      totp_disabled: 'Autentikasi dua faktor dinonaktifkan di akun {product} Anda {email} pada {time} UTC.',
      recovery_codes:
        'Kode pemulihan autentikasi dua faktor yang baru dibuat untuk akun {product} Anda {email} pada {time} UTC; kode sebelumnya tidak berlaku lagi.',
    },
    from: 'Perubahan ini dilakukan dari {client} ({network}).',
    othersEnded: 'Sesi Anda yang lain telah dikeluarkan.',
    notYou:
      'Jika ini bukan Anda, masuklah dengan kode yang dikirim ke alamat ini, atur kata sandi baru, dan akhiri sesi yang tidak Anda kenali di halaman Akun, atau minta bantuan pemilik organisasi Anda.',
  },
  et: {
    subject: {
      password_set: 'Teie {product} kontole määrati parool',
      password_changed: 'Teie {product} konto parool muudeti',
      totp_enabled: 'Teie {product} kontol on kaheastmeline autentimine sees',
      totp_disabled: 'Teie {product} kontol lülitati kaheastmeline autentimine välja',
      recovery_codes: 'Teie {product} konto uued taastekoodid',
    },
    what: {
      password_set: 'Teie {product} kontole {email} määrati parool {time} UTC.',
      password_changed: 'Teie {product} konto {email} parool muudeti {time} UTC.',
      totp_enabled: 'Teie {product} kontol {email} lülitati kaheastmeline autentimine sisse {time} UTC.',
      totp_disabled: 'Teie {product} kontol {email} lülitati kaheastmeline autentimine välja {time} UTC.',
      recovery_codes:
        'Teie {product} kontole {email} loodi {time} UTC uued kaheastmelise autentimise taastekoodid; varasemad koodid enam ei kehti.',
    },
    from: 'Muudatus tehti seadmest {client} ({network}).',
    othersEnded: 'Teie teised sessioonid lõpetati.',
    notYou:
      'Kui see polnud teie, logige sisse sellele aadressile saadetud koodiga, määrake uus parool ja lõpetage konto lehel sessioonid, mida te ei tunne, või paluge abi oma organisatsiooni omanikult.',
  },
  ar: {
    subject: {
      password_set: 'تم تعيين كلمة مرور لحسابك في {product}',
      password_changed: 'تم تغيير كلمة مرور حسابك في {product}',
      totp_enabled: 'المصادقة الثنائية مفعّلة في حسابك في {product}',
      totp_disabled: 'تم إيقاف المصادقة الثنائية في حسابك في {product}',
      recovery_codes: 'رموز استرداد جديدة لحسابك في {product}',
    },
    what: {
      password_set:
        'تم تعيين كلمة مرور لحسابك في {product} ({email}) في {time} بالتوقيت العالمي المنسق (UTC).',
      password_changed:
        'تم تغيير كلمة مرور حسابك في {product} ({email}) في {time} بالتوقيت العالمي المنسق (UTC).',
      totp_enabled:
        'تم تفعيل المصادقة الثنائية في حسابك في {product} ({email}) في {time} بالتوقيت العالمي المنسق (UTC).',
      totp_disabled:
        'تم إيقاف المصادقة الثنائية في حسابك في {product} ({email}) في {time} بالتوقيت العالمي المنسق (UTC).',
      recovery_codes:
        'تم إنشاء رموز استرداد جديدة للمصادقة الثنائية لحسابك في {product} ({email}) في {time} بالتوقيت العالمي المنسق (UTC)؛ ولم تعد الرموز السابقة صالحة.',
    },
    from: 'أُجري التغيير من {client} ({network}).',
    othersEnded: 'تم تسجيل الخروج من جلساتك الأخرى.',
    notYou:
      'إذا لم تكن أنت من قام بذلك، فسجّل الدخول برمز يُرسل إلى هذا العنوان، وعيّن كلمة مرور جديدة، وأنهِ الجلسات التي لا تعرفها من صفحة الحساب، أو اطلب المساعدة من أحد مالكي مؤسستك.',
  },
};
