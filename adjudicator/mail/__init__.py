"""Play by email: messages in (``incoming``, ``sources``), messages out (``outgoing``,
``queue``), and the settings of both (``config``)."""
