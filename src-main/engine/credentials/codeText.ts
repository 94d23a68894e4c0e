/** A 4–8 digit code standing on its own in an SMS or mail text ("Your code is 123 456" reads as 123456). */
export function codeFromMessage(message: string): string | undefined {
  // Prefer a number after words that announce a code; else the first standalone 4–8 digit group.
  const announced =
    /(?:code|otp|pin|passcode|password|verification|one[- ]time)[^0-9]{0,40}?(\d(?:[ -]?\d){3,7})(?!\d)/i.exec(message);
  const match = announced?.[1] ?? /(?<!\d)(\d{4,8})(?!\d)/.exec(message)?.[1];
  if (match === undefined) return undefined;
  const digits = match.replace(/[ -]/g, '');
  return digits.length >= 4 && digits.length <= 8 ? digits : undefined;
}
