import fc from 'fast-check';
import { createHash, createHmac } from 'node:crypto';
import { hmacSha256, sha256, toHex, utf8 } from './sha256';

const nodeSha = (bytes: Uint8Array): string => createHash('sha256').update(bytes).digest('hex');
const nodeHmac = (key: Uint8Array, message: Uint8Array): string =>
  createHmac('sha256', key).update(message).digest('hex');

describe('utf8', () => {
  it('encodes 1-, 2-, 3- and 4-byte characters like Node and TextEncoder', () => {
    for (const text of [
      '',
      'abc',
      'é',
      'ü€',
      '日本語',
      '😀',
      'a😀b',
      '\u0000',
      '\u007f\u0080\u07ff\u0800\uffff',
    ]) {
      expect(Array.from(utf8(text))).toEqual(Array.from(Buffer.from(text, 'utf8')));
      expect(Array.from(utf8(text))).toEqual(Array.from(new TextEncoder().encode(text)));
    }
  });

  it('turns a lone surrogate into U+FFFD, as TextEncoder does', () => {
    for (const text of ['\ud800', 'a\udfffb', '\udc00\ud800', '😀\ud83d']) {
      expect(Array.from(utf8(text))).toEqual(Array.from(new TextEncoder().encode(text)));
    }
  });

  it('matches TextEncoder for any string, including lone surrogates', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 40 }), (text) => {
        expect(Array.from(utf8(text))).toEqual(Array.from(new TextEncoder().encode(text)));
      }),
      { numRuns: 200 },
    );
  });
});

describe('sha256', () => {
  it('gives the FIPS 180-4 test vectors', () => {
    expect(toHex(sha256(utf8('')))).toBe('e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
    expect(toHex(sha256(utf8('abc')))).toBe(
      'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad',
    );
    expect(toHex(sha256(utf8('abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq')))).toBe(
      '248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1',
    );
  });

  it('agrees with node:crypto at every length around the padding boundaries', () => {
    for (let length = 0; length <= 200; length++) {
      const bytes = Uint8Array.from({ length }, (_, i) => (i * 31 + length) & 0xff);
      expect(toHex(sha256(bytes))).toBe(nodeSha(bytes));
    }
  });

  it('agrees with node:crypto for a million-byte message', () => {
    const bytes = new Uint8Array(1_000_000).fill(0x61);
    expect(toHex(sha256(bytes))).toBe('cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0');
  });

  it('agrees with node:crypto for random bytes', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 300 }), (bytes) => {
        expect(toHex(sha256(bytes))).toBe(nodeSha(bytes));
      }),
      { numRuns: 300 },
    );
  });

  it('agrees with node:crypto for random strings, non-ASCII included', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 60 }), (text) => {
        expect(toHex(sha256(utf8(text)))).toBe(createHash('sha256').update(text, 'utf8').digest('hex'));
      }),
      { numRuns: 300 },
    );
  });

  it('hashes a subarray view by its own bytes only', () => {
    const backing = Uint8Array.from([9, 9, 1, 2, 3, 9]);
    expect(toHex(sha256(backing.subarray(2, 5)))).toBe(nodeSha(Uint8Array.from([1, 2, 3])));
  });
});

describe('hmacSha256', () => {
  it('gives the RFC 4231 test vectors', () => {
    const key = new Uint8Array(20).fill(0x0b);
    expect(toHex(hmacSha256(key, utf8('Hi There')))).toBe(
      'b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7',
    );
    expect(toHex(hmacSha256(utf8('Jefe'), utf8('what do ya want for nothing?')))).toBe(
      '5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843',
    );
    // Case 6: a 131-byte key, longer than the 64-byte block, is hashed first.
    const longKey = new Uint8Array(131).fill(0xaa);
    expect(toHex(hmacSha256(longKey, utf8('Test Using Larger Than Block-Size Key - Hash Key First')))).toBe(
      '60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54',
    );
  });

  it('agrees with node:crypto for keys of every length from 0 to 130 bytes', () => {
    const message = utf8('move 17');
    for (let length = 0; length <= 130; length++) {
      const key = Uint8Array.from({ length }, (_, i) => (i * 7 + 3) & 0xff);
      expect(toHex(hmacSha256(key, message))).toBe(nodeHmac(key, message));
    }
  });

  it('agrees with node:crypto for random keys and messages', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 200 }), fc.uint8Array({ maxLength: 200 }), (key, message) => {
        expect(toHex(hmacSha256(key, message))).toBe(nodeHmac(key, message));
      }),
      { numRuns: 300 },
    );
  });

  it('agrees with node:crypto for non-ASCII string keys and messages, long keys included', () => {
    fc.assert(
      fc.property(
        fc.string({ unit: 'grapheme', maxLength: 80 }),
        fc.string({ unit: 'grapheme', maxLength: 40 }),
        (key, message) => {
          expect(toHex(hmacSha256(utf8(key), utf8(message)))).toBe(
            createHmac('sha256', Buffer.from(key, 'utf8')).update(message, 'utf8').digest('hex'),
          );
        },
      ),
      { numRuns: 300 },
    );
    const key = 'ключ-🔑-'.repeat(10);
    expect(utf8(key).length).toBeGreaterThan(64);
    expect(toHex(hmacSha256(utf8(key), utf8('日本')))).toBe(
      createHmac('sha256', key).update('日本').digest('hex'),
    );
  });
});

describe('toHex', () => {
  it('writes two lower-case digits per byte', () => {
    expect(toHex(Uint8Array.from([0, 1, 15, 16, 171, 255]))).toBe('00010f10abff');
    expect(toHex(new Uint8Array())).toBe('');
  });
});
