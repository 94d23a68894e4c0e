import { createCipheriv, createDecipheriv, randomBytes, scrypt, type ScryptOptions } from 'node:crypto';
import { mkdir, open, readFile, rename, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { describeZodIssues, zodIssuePath } from '../base/zodIssues.ts';
import { assertSecretName, SecretsUnavailableError, type SecretStore } from './secretStore.ts';

export const VAULT_FILE_NAME = 'secrets.vault';

const FORMAT = 'portico-vault';
const VERSION = 1;
const CIPHER = 'aes-256-gcm';
const KEY_BYTES = 32;
const SALT_BYTES = 16;
const IV_BYTES = 12;
// OWASP's scrypt baseline (N=2^17, r=8, p=1): ~128 MiB and a few hundred ms, paid once per open.
const DEFAULT_KDF = { N: 2 ** 17, r: 8, p: 1 } as const;
// Bounds on parameters read back from a file, so a doctored header cannot demand gigabytes.
const MAX_LOG2_N = 20;
const MAX_R = 16;
const MAX_P = 4;

const KdfParams = z.object({
  name: z.literal('scrypt'),
  N: z
    .int()
    .min(2)
    .max(2 ** MAX_LOG2_N)
    .refine((n) => (n & (n - 1)) === 0, 'must be a power of two'),
  r: z.int().min(1).max(MAX_R),
  p: z.int().min(1).max(MAX_P),
  salt: z.string(),
});
type KdfParams = z.infer<typeof KdfParams>;

/** The file's JSON: the KDF and cipher parameters in clear, the secrets encrypted. */
const VaultEnvelope = z.object({
  format: z.literal(FORMAT),
  version: z.literal(VERSION),
  kdf: KdfParams,
  cipher: z.literal(CIPHER),
  iv: z.string(),
  tag: z.string(),
  ciphertext: z.string(),
});
type VaultEnvelope = z.infer<typeof VaultEnvelope>;

/** The decrypted payload: name/value pairs. */
const VaultSecrets = z.object({ secrets: z.array(z.tuple([z.string(), z.string()])) });

interface DerivedKey {
  kdf: KdfParams;
  key: Buffer;
}

export interface VaultStoreOptions {
  /** The data directory; the vault is `<dataDir>/secrets.vault`. */
  dataDir: string;
  /** The passphrase from PORTICO_VAULT_KEY. */
  vaultKey: string;
}

/** Opens (or prepares to create) the encrypted vault, failing at once when the key does not decrypt it. */
export async function openVaultStore(options: VaultStoreOptions): Promise<VaultSecretStore> {
  if (options.vaultKey.length === 0) throw new TypeError('The vault key must not be empty');
  const store = new VaultSecretStore(options.dataDir, options.vaultKey);
  await store.verify();
  return store;
}

/**
 * Secrets in one AES-256-GCM encrypted file, for machines without an OS keychain. Every operation
 * re-reads the file, so the service and the CLI never overwrite each other's changes with a stale copy.
 */
export class VaultSecretStore implements SecretStore {
  readonly kind = 'vault' as const;
  readonly path: string;
  readonly #dataDir: string;
  readonly #vaultKey: string;
  #derived: DerivedKey | undefined;
  // Serializes read-modify-write cycles within this process.
  #queue: Promise<unknown> = Promise.resolve();

  constructor(dataDir: string, vaultKey: string) {
    this.#dataDir = dataDir;
    this.#vaultKey = vaultKey;
    this.path = join(dataDir, VAULT_FILE_NAME);
  }

  async set(name: string, value: string): Promise<void> {
    assertSecretName(name);
    await this.#exclusive(async () => {
      const secrets = await this.#load();
      secrets.set(name, value);
      await this.#save(secrets);
    });
  }

  async get(name: string): Promise<string | undefined> {
    assertSecretName(name);
    return this.#exclusive(async () => (await this.#load()).get(name));
  }

  async delete(name: string): Promise<boolean> {
    assertSecretName(name);
    return this.#exclusive(async () => {
      const secrets = await this.#load();
      if (!secrets.delete(name)) return false;
      await this.#save(secrets);
      return true;
    });
  }

  /** Decrypts the file once (or derives a key for a new one) so a wrong key is reported at start-up. */
  async verify(): Promise<void> {
    await this.#exclusive(async () => {
      await this.#load();
      await this.#keyFor(undefined);
    });
  }

  #exclusive<T>(operation: () => Promise<T>): Promise<T> {
    const result = this.#queue.then(operation);
    this.#queue = result.catch(() => undefined);
    return result;
  }

  async #load(): Promise<Map<string, string>> {
    const raw = await readVaultFile(this.path);
    if (raw === undefined) return new Map();
    const envelope = parseEnvelope(raw, this.path);
    const { key } = await this.#keyFor(envelope.kdf);
    let plaintext: string;
    try {
      const decipher = createDecipheriv(CIPHER, key, Buffer.from(envelope.iv, 'base64'));
      decipher.setAAD(associatedData(envelope.kdf));
      decipher.setAuthTag(Buffer.from(envelope.tag, 'base64'));
      plaintext = Buffer.concat([
        decipher.update(Buffer.from(envelope.ciphertext, 'base64')),
        decipher.final(),
      ]).toString('utf8');
    } catch (error) {
      throw new SecretsUnavailableError(
        `The secrets vault ${this.path} could not be decrypted: PORTICO_VAULT_KEY is wrong or the file was altered`,
        { cause: error },
      );
    }
    return parseSecrets(plaintext, this.path);
  }

  async #save(secrets: Map<string, string>): Promise<void> {
    const { kdf, key } = await this.#keyFor(undefined);
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv(CIPHER, key, iv);
    cipher.setAAD(associatedData(kdf));
    const ciphertext = Buffer.concat([
      cipher.update(JSON.stringify({ secrets: [...secrets] }), 'utf8'),
      cipher.final(),
    ]);
    const envelope: VaultEnvelope = {
      format: FORMAT,
      version: VERSION,
      kdf,
      cipher: CIPHER,
      iv: iv.toString('base64'),
      tag: cipher.getAuthTag().toString('base64'),
      ciphertext: ciphertext.toString('base64'),
    };
    await mkdir(this.#dataDir, { recursive: true, mode: 0o700 });
    await writeFileAtomically(this.path, `${JSON.stringify(envelope, null, 2)}\n`);
  }

  // The salt belongs to the file: the key is derived once per salt, and a new file gets a fresh salt.
  async #keyFor(kdf: KdfParams | undefined): Promise<DerivedKey> {
    if (this.#derived && (kdf === undefined || sameKdf(this.#derived.kdf, kdf))) return this.#derived;
    const params: KdfParams = kdf ?? {
      name: 'scrypt',
      ...DEFAULT_KDF,
      salt: randomBytes(SALT_BYTES).toString('base64'),
    };
    const key = await deriveKey(this.#vaultKey, params);
    this.#derived = { kdf: params, key };
    return this.#derived;
  }
}

async function readVaultFile(path: string): Promise<string | undefined> {
  try {
    return await readFile(path, 'utf8');
  } catch (error) {
    if (isErrnoException(error) && error.code === 'ENOENT') return undefined;
    throw new SecretsUnavailableError(`The secrets vault ${path} could not be read`, { cause: error });
  }
}

// A reader never sees a half-written vault, and the file is private from its first byte.
async function writeFileAtomically(path: string, contents: string): Promise<void> {
  const temporary = `${path}.${randomBytes(6).toString('hex')}.tmp`;
  try {
    const handle = await open(temporary, 'wx', 0o600);
    try {
      await handle.writeFile(contents, 'utf8');
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(temporary, path);
  } catch (error) {
    await unlink(temporary).catch(() => undefined);
    throw new SecretsUnavailableError(`The secrets vault ${path} could not be written`, { cause: error });
  }
}

function damaged(path: string, detail?: string, cause?: unknown): SecretsUnavailableError {
  return new SecretsUnavailableError(
    `The secrets vault ${path} is damaged or not a Portico vault${detail ? `: ${detail}` : ''}`,
    cause === undefined ? undefined : { cause },
  );
}

function parseEnvelope(raw: string, path: string): VaultEnvelope {
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch (error) {
    throw damaged(path, 'not JSON', error);
  }
  // A newer Portico's vault says so, rather than reading as damaged.
  const version = z.object({ format: z.literal(FORMAT), version: z.unknown() }).safeParse(value);
  if (version.success && version.data.version !== VERSION) {
    throw new SecretsUnavailableError(
      `The secrets vault ${path} has version ${String(version.data.version)}, which this Portico cannot read`,
    );
  }
  const envelope = VaultEnvelope.safeParse(value, { reportInput: true });
  if (!envelope.success) throw damaged(path, describeZodIssues('', envelope.error.issues));
  return envelope.data;
}

function parseSecrets(plaintext: string, path: string): Map<string, string> {
  let value: unknown;
  try {
    value = JSON.parse(plaintext);
  } catch (error) {
    throw damaged(path, 'the decrypted content is not JSON', error);
  }
  const parsed = VaultSecrets.safeParse(value, { reportInput: true });
  // Secret values are never echoed: only where the shape breaks.
  if (!parsed.success)
    throw damaged(
      path,
      `decrypted content: ${parsed.error.issues.map((issue) => zodIssuePath('', issue) || 'value').join(', ')}`,
    );
  return new Map(parsed.data.secrets);
}

// Binding the header to the ciphertext means edited KDF parameters fail authentication like a wrong key.
function associatedData(kdf: KdfParams): Buffer {
  return Buffer.from(JSON.stringify([FORMAT, VERSION, CIPHER, kdf.name, kdf.N, kdf.r, kdf.p, kdf.salt]), 'utf8');
}

function deriveKey(passphrase: string, kdf: KdfParams): Promise<Buffer> {
  const options: ScryptOptions = { N: kdf.N, r: kdf.r, p: kdf.p, maxmem: 256 * kdf.N * kdf.r };
  return new Promise((resolve, reject) => {
    scrypt(passphrase.normalize('NFC'), Buffer.from(kdf.salt, 'base64'), KEY_BYTES, options, (error, key) =>
      error ? reject(error) : resolve(key),
    );
  });
}

function sameKdf(a: KdfParams, b: KdfParams): boolean {
  return a.N === b.N && a.r === b.r && a.p === b.p && a.salt === b.salt;
}

function isErrnoException(error: unknown): error is NodeJS.ErrnoException {
  return error instanceof Error && 'code' in error;
}
