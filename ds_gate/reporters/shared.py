"""What a report and a stop (``reporters.stop``) print alike, in one place the stop can import
without loading the report's reporter (a ``recall`` process never loads the SARIF or summary reporter)."""

from __future__ import annotations

from ds_gate.kernel.version import HOMEPAGE

COLUMNS = ("quest", "enforced", "completed", "pending", "errors", "verdict")  # a home's summary table, a stop's row
INFORMATION_URI = HOMEPAGE  # SARIF's tool.driver.informationUri: this tool's page
SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"  # a SARIF document's $schema (a report's or a stop's)
