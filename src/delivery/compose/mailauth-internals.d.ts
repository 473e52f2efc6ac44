/**
 * The two mailauth 7.1 internals the render worker signs with (plain CommonJS, no types): the
 * DKIM signer class, which accepts a precomputed body hash and parsed headers and then signs
 * without reading the body again, and the header parser that feeds it. mailauth's own `dkimSign`
 * is built on the same class.
 */
declare module 'mailauth/lib/dkim/dkim-signer.js' {
  interface SignatureData {
    signingDomain: string;
    selector: string;
    privateKey: string;
    algorithm?: string;
    identity?: string;
  }
  interface DkimSignerOptions {
    canonicalization: string;
    headerList: string[];
    signTime: Date;
    strict: boolean;
    signatureData: SignatureData[];
    bodyHash: string;
    headers: unknown;
  }
  export class DkimSigner {
    constructor(options: DkimSignerOptions);
    finalize(): Promise<void>;
    signatureHeaders: string[];
    errors: { signingDomain?: string; selector?: string; err?: Error }[];
  }
}

declare module 'mailauth/lib/tools.js' {
  export function parseHeaders(header: Buffer): unknown;
}
