"""Broker properties: the files, JSON and CR lines Artemis applies after broker.xml."""
