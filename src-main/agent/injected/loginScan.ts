// Runs in the page: finds and tags a login form's controls for the builtin filler (agent/autofill/loginPages.ts).
import type { LoginScan } from './scanTypes.ts';

export type { LoginScan };

/**
 * Tags the frame's visible login controls: the username/email field, the password field, the
 * one-time-code field (autocomplete="one-time-code", a "verification code"-like label or name, a
 * 6-digit input, or split single-digit boxes) and the button that submits them.
 */
export default function loginScan(role: string): LoginScan {
  const visible = (el: Element): boolean => {
    const box = (el as HTMLElement).getBoundingClientRect();
    const style = getComputedStyle(el);
    return box.width > 0 && box.height > 0 && style.visibility !== 'hidden' && style.display !== 'none';
  };
  for (const el of document.querySelectorAll(`[${role}]`)) el.removeAttribute(role);
  const inputs = [...document.querySelectorAll('input')].filter((el) => visible(el) && !el.disabled && !el.readOnly);
  const textLike = inputs.filter(
    (el) => ['text', 'email', 'tel', 'number', ''].includes(el.type) || !el.hasAttribute('type'),
  );
  const describe = (el: HTMLInputElement): string => {
    const labels = [...(el.labels ?? [])].map((l) => l.textContent ?? '').join(' ');
    return `${el.name} ${el.id} ${el.placeholder} ${el.getAttribute('aria-label') ?? ''} ${el.autocomplete} ${labels}`.toLowerCase();
  };
  const password = inputs.find((el) => el.type === 'password');
  const codeWords =
    /one-time-code|verification|one[- ]time|\botp\b|2fa|two[- ]factor|authenticat|security code|\bcode\b|passcode|totp/;
  const boxes = textLike.filter((el) => el.maxLength === 1);
  const single = textLike.find(
    (el) =>
      el.maxLength !== 1 &&
      (el.autocomplete === 'one-time-code' ||
        codeWords.test(describe(el)) ||
        (el.maxLength === 6 && /numeric|number/.test(`${el.inputMode} ${el.type}`))),
  );
  let otpBoxes = 0;
  if (!password && single) {
    single.setAttribute(role, 'otp-0');
    otpBoxes = 1;
  } else if (!password && boxes.length >= 4 && boxes.length <= 8) {
    for (const [i, el] of boxes.entries()) el.setAttribute(role, `otp-${i}`);
    otpBoxes = boxes.length;
  }
  let username: HTMLInputElement | undefined;
  if (otpBoxes === 0) {
    const userWords = /user|e-?mail|login|account|identifier|username/;
    const candidates = textLike.filter(
      (el) => el.autocomplete === 'username' || el.type === 'email' || userWords.test(describe(el)),
    );
    const before = password
      ? candidates.filter((el) => el.compareDocumentPosition(password) & Node.DOCUMENT_POSITION_FOLLOWING)
      : candidates;
    username =
      before.at(-1) ??
      (password ? undefined : candidates.length === 1 && textLike.length === 1 ? candidates[0] : undefined);
    if (!password && username && textLike.length > 1) username = undefined;
    username?.setAttribute(role, 'username');
    password?.setAttribute(role, 'password');
  }
  const anchor = password ?? username ?? document.querySelector(`[${role}="otp-0"]`);
  let submit: Element | undefined;
  if (anchor) {
    const scope = (anchor as HTMLInputElement).form ?? document;
    const buttons = [...scope.querySelectorAll('button, input[type="submit"], input[type="button"]')].filter(
      (el) => visible(el) && !(el as HTMLButtonElement).disabled,
    );
    const words = /sign in|log ?in|next|continue|verify|submit|confirm|send/i;
    submit =
      buttons.find(
        (el) =>
          (el as HTMLButtonElement).type === 'submit' &&
          words.test(`${el.textContent ?? ''} ${(el as HTMLInputElement).value ?? ''}`),
      ) ??
      buttons.find((el) => words.test(`${el.textContent ?? ''} ${(el as HTMLInputElement).value ?? ''}`)) ??
      buttons.find((el) => (el as HTMLButtonElement).type === 'submit');
    submit?.setAttribute(role, 'submit');
  }
  return {
    username: username !== undefined && (password !== undefined || otpBoxes === 0),
    password: password !== undefined && otpBoxes === 0,
    otpBoxes,
    submit: submit !== undefined,
  };
}
