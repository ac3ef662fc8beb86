/** The version reported by the OpenAPI document. */
export const VERSION = '0.1.0';
