"""The user's own broker as a second judge: its loader and router classes in a JVM (``--broker-home``).

``jvm.py`` compiles the Java driver kept here as source (``java/``) against the installation's ``lib/``
once per installation into a cache and runs it bounded in time and memory; ``loader.py`` turns the
loader's verdict into findings and compares it with arouter's own.
"""
