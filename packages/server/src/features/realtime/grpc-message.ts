const HEX = '0123456789ABCDEF';

/**
 * The `grpc-message` trailer as the gRPC spec (PROTOCOL-HTTP2.md) says: the message's UTF-8 bytes,
 * percent-encoding only those outside 0x20–0x7E and `%` itself, so clients show `a; b: c`, not
 * `a%3B%20b%3A%20c`. Ill-formed UTF-16 is replaced first (U+FFFD) so encoding never throws.
 */
export function encodeGrpcMessage(message: string): string {
  const bytes = Buffer.from(message.toWellFormed(), 'utf8');
  let out = '';
  for (const byte of bytes) {
    out +=
      byte < 0x20 || byte > 0x7e || byte === 0x25 ? `%${HEX[byte >> 4]}${HEX[byte & 15]}` : String.fromCharCode(byte);
  }
  return out;
}

/** Prefixes a message with the gRPC frame header: flag 0 (not compressed), 4-byte big-endian length. */
export function grpcFrame(message: Uint8Array): Uint8Array {
  const frame = new Uint8Array(5 + message.length);
  new DataView(frame.buffer).setUint32(1, message.length);
  frame.set(message, 5);
  return frame;
}
