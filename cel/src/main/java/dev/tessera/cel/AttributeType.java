package dev.tessera.cel;

/** The type of a device attribute's value (the API's one-of), as CEL sees it. */
public enum AttributeType {
  STRING,
  INT,
  BOOL,
  VERSION
}
