"""The presentation layer: the only place where data becomes words and pictures.

Everything below it (the games, the engine, the steps, mail's reading and queuing) hands over data:
:class:`~adjudicator.rules.contract.Msg` codes with parameters, and each turn's stored views. This
package turns them into text for a reader, in that reader's language; only the layers above it
import it (mail, the demo, the command line: docs/architecture.md). docs/presentation.md tells how
to add a game's words, a format or a language.
"""
