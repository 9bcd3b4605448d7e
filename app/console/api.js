// The public API with the signed-in key; every failure becomes an ApiError carrying the
// API's stable code and message (the one error shape), never a blank page.
const KEY = "evidence.apiKey";

export class ApiError extends Error {
  constructor(status, code, message, details) {
    super(message);
    this.status = status;
    this.code = code;
    this.details = details || {};
  }
}

export const session = {
  get key() { return sessionStorage.getItem(KEY); },
  set key(value) {
    if (value) sessionStorage.setItem(KEY, value); else sessionStorage.removeItem(KEY);
  },
};

export async function call(method, path, { json, form, key } = {}) {
  const headers = { "X-API-Key": key || session.key || "" };
  let body;
  if (json !== undefined) {
    headers["Content-Type"] = "application/json";
    body = JSON.stringify(json);
  } else if (form !== undefined) {
    body = form;
  }
  let response;
  try {
    response = await fetch(path, { method, headers, body, cache: "no-store" });
  } catch (err) {
    throw new ApiError(0, "NETWORK", "the server could not be reached", {});
  }
  if (response.status === 204) return null;
  let payload = null;
  try { payload = await response.json(); } catch (err) { payload = null; }
  if (!response.ok) {
    const e = (payload && payload.error) || {};
    throw new ApiError(response.status, e.code || "HTTP_" + response.status,
                       e.message || "HTTP " + response.status, e.details);
  }
  return payload;
}

// A binary answer (a page image, an original file) as a Blob; failures as call's.
export async function callBlob(path) {
  let response;
  try {
    response = await fetch(path, { headers: { "X-API-Key": session.key || "" }, cache: "no-store" });
  } catch (err) {
    throw new ApiError(0, "NETWORK", "the server could not be reached", {});
  }
  if (!response.ok) {
    let payload = null;
    try { payload = await response.json(); } catch (err) { payload = null; }
    const e = (payload && payload.error) || {};
    throw new ApiError(response.status, e.code || "HTTP_" + response.status,
                       e.message || "HTTP " + response.status, e.details);
  }
  return response.blob();
}
