/**
 * gRPC over raw node:http2 for the load generators: one length-prefixed message per frame (1 byte
 * compressed flag, 4 bytes big-endian length, the message). Far lighter per connection than a
 * grpc-js channel, so a worker process can hold thousands of subscriber connections.
 */
import http2 from 'node:http2';
import { SERVICE_PATH } from '@realtime-config/protocol';

export function grpcFrame(message: Uint8Array): Buffer {
  const frame = Buffer.allocUnsafe(5 + message.length);
  frame[0] = 0;
  frame.writeUInt32BE(message.length, 1);
  frame.set(message, 5);
  return frame;
}

export function grpcHeaders(method: string): http2.OutgoingHttpHeaders {
  return {
    ':method': 'POST',
    ':path': `${SERVICE_PATH}/${method}`,
    'content-type': 'application/grpc',
    te: 'trailers',
  };
}

/**
 * Splits a stream's DATA chunks into whole gRPC frames (a chunk may hold several frames or part
 * of one). Frames are returned as views of the chunk when they lie inside it.
 */
export class FrameReader {
  private pending: Buffer | null = null;

  push(chunk: Buffer, onFrame: (frame: Buffer) => void): void {
    let buffer = this.pending ? Buffer.concat([this.pending, chunk]) : chunk;
    this.pending = null;
    while (buffer.length >= 5) {
      const end = 5 + buffer.readUInt32BE(1);
      if (buffer.length < end) break;
      onFrame(buffer.subarray(0, end));
      buffer = buffer.subarray(end);
    }
    if (buffer.length > 0) this.pending = Buffer.from(buffer);
  }
}

/** One HTTP/2 connection (h2c) to the server, with the error handler every session needs. */
export function connectH2c(url: string): http2.ClientHttp2Session {
  const session = http2.connect(url, { settings: { enablePush: false } });
  session.on('error', () => undefined); // reported through the stream or 'close'
  return session;
}
