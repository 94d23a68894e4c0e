import { z } from 'zod';
import { HttpUrl, Timestamp, Uuid } from './common.ts';
import { safeName } from './names.ts';

// eslint-disable-next-line no-control-regex
const NO_CONTROL = /^[^\u0000-\u001f\u007f]*$/;
const line = (max: number) => safeName(z.string().min(1).max(max));

/** A TOTP seed as sites show it: base32, spaces allowed (removed before use), 80 to 512 bits. */
const TotpSecret = z
  .string()
  .max(128)
  .transform((value) => value.replace(/\s+/g, '').toUpperCase())
  .pipe(
    z.string().regex(/^[A-Z2-7]{16,103}=*$/, 'must be a base32 TOTP key (letters A-Z and digits 2-7, at least 16)'),
  );

/** POST /public/credentials (interface §4.7): any combination of ways to sign in; secrets go to the keychain. */
export const CredentialCreateRequest = z.strictObject({
  service_name: line(200),
  username_or_email: line(320).optional(),
  password: z.string().min(1).max(1024).optional(),
  totp_secret: TotpSecret.optional(),
  gmail_oauth_account_id: Uuid.optional(),
  phone_number_id: Uuid.optional(),
  service_url: HttpUrl.optional().describe(
    'Portico addition: the site the credential belongs to; when set, its values are typed only into frames of this origin',
  ),
});
export type CredentialCreateRequest = z.infer<typeof CredentialCreateRequest>;

/** A credential as create and get return it (interface §2.6); secrets are never returned. */
export const Credential = z.object({
  id: Uuid,
  user_id: z.string(),
  service_name: z.string(),
  username_or_email: z.string().nullable(),
  service_url: z.string().nullable(),
  has_password: z.boolean(),
  has_totp: z.boolean(),
  has_gmail_oauth: z.boolean(),
  has_phone_number: z.boolean(),
  created_at: Timestamp,
  updated_at: Timestamp,
});
export type Credential = z.infer<typeof Credential>;

/** One item of GET /public/credentials (interface §2.6). */
export const CredentialListItem = z.object({
  id: Uuid,
  user_id: z.string(),
  service_name: z.string(),
  username_or_email: z.string().optional(),
});
export type CredentialListItem = z.infer<typeof CredentialListItem>;

export const CredentialList = z.array(CredentialListItem);
export type CredentialList = z.infer<typeof CredentialList>;

export const CredentialParams = z.object({ credential_id: z.string().min(1).max(128) });

/** POST /public/phone-numbers (local-service.md §5.4): a number that receives SMS codes. */
export const PhoneNumberCreateRequest = z.strictObject({
  phone_number: z.string().regex(/^\+?[0-9 ()-]{4,32}$/, 'must be a phone number such as +15551234567'),
  label: line(200).optional(),
});
export type PhoneNumberCreateRequest = z.infer<typeof PhoneNumberCreateRequest>;

export const PhoneNumber = z.object({
  id: Uuid,
  phone_number: z.string(),
  label: z.string().nullable(),
  created_at: Timestamp,
});
export type PhoneNumber = z.infer<typeof PhoneNumber>;

/** GET /public/phone-numbers: the workspace's phone numbers, oldest first. */
export const PhoneNumberList = z.array(PhoneNumber);
export type PhoneNumberList = z.infer<typeof PhoneNumberList>;

export const PhoneNumberParams = z.object({ phone_number_id: Uuid });

/**
 * POST /public/verification-codes (local-service.md §5.4): a code, or a whole SMS or mail text to read
 * one from, for the job waiting on that credential, phone number or address.
 */
export const VerificationCodeRequest = z
  .strictObject({
    credential_id: Uuid.optional(),
    phone_number_id: Uuid.optional(),
    email: z.string().min(3).max(320).regex(NO_CONTROL).optional(),
    code: z
      .string()
      .regex(/^[A-Za-z0-9-]{4,12}$/, 'must be 4 to 12 letters or digits')
      .optional(),
    message: z.string().min(1).max(8192).optional(),
  })
  .refine(
    (body) => body.credential_id !== undefined || body.phone_number_id !== undefined || body.email !== undefined,
    {
      message: 'name the credential_id, phone_number_id or email the code is for',
    },
  )
  .refine((body) => body.code !== undefined || body.message !== undefined, {
    message: 'send a code or a message to read it from',
  });
export type VerificationCodeRequest = z.infer<typeof VerificationCodeRequest>;

/** How many waiting jobs took the code (0: nobody was waiting; it is kept for 10 minutes for a job that asks next). */
export const VerificationCodeResponse = z.object({ accepted: z.boolean(), delivered_to_jobs: z.int() });
export type VerificationCodeResponse = z.infer<typeof VerificationCodeResponse>;

/** Exact `detail` texts of the credential routes (interface §7) and Portico's own. */
export const credentialMessages = {
  createFailed: 'Failed to create credential',
  listFailed: 'Failed to retrieve credentials',
  notFound: 'Credential not found',
  phoneNumberNotFound: 'Phone number not found',
  connectedAccountNotFound: 'Connected account not found',
  noCodeInMessage: 'body.message: no 4 to 8 digit code found in the message',
  /** 409 on DELETE /public/phone-numbers/{id}: credentials still receive their codes on it. */
  phoneNumberInUse: (credentials: readonly { id: string; service_name: string }[]): string =>
    `Phone number is used by ${credentials.length} credential(s): ${credentials
      .slice(0, 10)
      .map((c) => `'${c.service_name}' (${c.id})`)
      .join(', ')}${credentials.length > 10 ? ', …' : ''}; delete them first`,
} as const;
