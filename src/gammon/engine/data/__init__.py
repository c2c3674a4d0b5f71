"""Published data the engine builds on, kept as Python tables so that they ship with the
package without any package-data configuration; each module names its source."""
