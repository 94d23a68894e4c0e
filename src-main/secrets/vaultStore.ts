import { createCipheriv, createDecipheriv, randomBytes, scrypt, type ScryptOptions } from 'node:crypto';
import { mkdir, open, readFile, rename, unlink } from 'node:fs/promises';
import { join } from 'node:path';
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

interface KdfParams {
  name: 'scrypt';
  N: number;
  r: number;
  p: number;
  salt: string;
}

interface VaultEnvelope {
  format: typeof FORMAT;
  version: typeof VERSION;
  kdf: KdfParams;
  cipher: typeof CIPHER;
  iv: string;
  tag: string;
  ciphertext: string;
}

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
      plaintext = Buffer.concat([decipher.update(Buffer.from(envelope.ciphertext, 'base64')), decipher.final()]).toString('utf8');
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
    const ciphertext = Buffer.concat([cipher.update(JSON.stringify({ secrets: [...secrets] }), 'utf8'), cipher.final()]);
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
    const params: KdfParams = kdf ?? { name: 'scrypt', ...DEFAULT_KDF, salt: randomBytes(SALT_BYTES).toString('base64') };
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

function parseEnvelope(raw: string, path: string): VaultEnvelope {
  const damaged = (cause?: unknown): SecretsUnavailableError =>
    new SecretsUnavailableError(`The secrets vault ${path} is damaged or not a Portico vault`, { cause });
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch (error) {
    throw damaged(error);
  }
  if (!isRecord(value) || value.format !== FORMAT || value.cipher !== CIPHER) throw damaged();
  if (value.version !== VERSION) {
    throw new SecretsUnavailableError(`The secrets vault ${path} has version ${String(value.version)}, which this Portico cannot read`);
  }
  const kdf = value.kdf;
  if (
    !isRecord(kdf) ||
    kdf.name !== 'scrypt' ||
    !isPowerOfTwo(kdf.N, MAX_LOG2_N) ||
    !isIntegerIn(kdf.r, 1, MAX_R) ||
    !isIntegerIn(kdf.p, 1, MAX_P) ||
    typeof kdf.salt !== 'string' ||
    typeof value.iv !== 'string' ||
    typeof value.tag !== 'string' ||
    typeof value.ciphertext !== 'string'
  ) {
    throw damaged();
  }
  return {
    format: FORMAT,
    version: VERSION,
    kdf: { name: 'scrypt', N: kdf.N, r: kdf.r, p: kdf.p, salt: kdf.salt },
    cipher: CIPHER,
    iv: value.iv,
    tag: value.tag,
    ciphertext: value.ciphertext,
  };
}

function parseSecrets(plaintext: string, path: string): Map<string, string> {
  const parsed: unknown = JSON.parse(plaintext);
  if (!isRecord(parsed) || !Array.isArray(parsed.secrets)) {
    throw new SecretsUnavailableError(`The secrets vault ${path} is damaged or not a Portico vault`);
  }
  const secrets = new Map<string, string>();
  for (const entry of parsed.secrets as unknown[]) {
    if (!Array.isArray(entry) || typeof entry[0] !== 'string' || typeof entry[1] !== 'string') {
      throw new SecretsUnavailableError(`The secrets vault ${path} is damaged or not a Portico vault`);
    }
    secrets.set(entry[0], entry[1]);
  }
  return secrets;
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

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isIntegerIn(value: unknown, min: number, max: number): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= min && value <= max;
}

function isPowerOfTwo(value: unknown, maxLog2: number): value is number {
  return isIntegerIn(value, 2, 2 ** maxLog2) && (value & (value - 1)) === 0;
}

function isErrnoException(error: unknown): error is NodeJS.ErrnoException {
  return error instanceof Error && 'code' in error;
}
