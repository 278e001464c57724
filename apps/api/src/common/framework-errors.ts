import type { FastifyReply, FastifyServerOptions } from 'fastify';
import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import { ApiError } from './api-error';

/**
 * Refusals Fastify or Node's HTTP parser make before a route runs, in the documented error
 * shape: a path that is not valid percent-encoding, and requests the HTTP parser cannot read
 * (headers too large, bytes not allowed in a header).
 */
export const frameworkErrors: NonNullable<FastifyServerOptions['frameworkErrors']> = (error, _request, reply) => {
  const refusal =
    error.code === 'FST_ERR_BAD_URL'
      ? new ApiError(
          400,
          'bad_url',
          'The URL path is not valid percent-encoding (e.g. a "%" not followed by two hex digits, or bytes that are not UTF-8): encode it with encodeURIComponent.',
        )
      : new ApiError(400, 'bad_request', `The request could not be routed: ${error.message}`);
  // The reply is typed per route; this one belongs to none.
  void (reply as unknown as FastifyReply).status(refusal.status).send(refusal.body());
};

function clientRefusal(error: Error & { code?: string }): ApiError | null {
  switch (error.code) {
    case 'HPE_HEADER_OVERFLOW':
      return new ApiError(
        431,
        'headers_too_large',
        'The request headers are larger than the server accepts (16 KB in total by default): send fewer or shorter headers.',
      );
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return new ApiError(408, 'request_timeout', 'The request took too long to arrive: send it again.');
    case 'HPE_INVALID_HEADER_TOKEN':
    case 'HPE_INVALID_CONSTANT':
    case 'HPE_LF_EXPECTED':
    case 'HPE_CR_EXPECTED':
      return new ApiError(
        400,
        'bad_header',
        'A request header could not be read: header names and values must be printable ASCII, without control characters. Percent-encode other text.',
      );
    default:
      return new ApiError(400, 'bad_request', `The request is not valid HTTP/1.1 and could not be read (${error.code ?? error.message}).`);
  }
}

/** Node's HTTP parser refused the request; answer in the documented shape, then close. */
export function clientErrorHandler(error: Error & { code?: string }, socket: Socket): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const refusal = clientRefusal(error);
  if (refusal && socket.writable) {
    const body = JSON.stringify(refusal.body());
    socket.write(
      `HTTP/1.1 ${refusal.status} ${STATUS_CODES[refusal.status]}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy(error);
}
